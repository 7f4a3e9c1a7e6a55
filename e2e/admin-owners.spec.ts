/**
 * Workspace owners run their own workspace (issue 15), in Debian's Chromium against the production build: keys
 * (a secret shown once signs a real request and is never shown again, the active key cannot be deleted, a
 * rotation re-signs the next webhook at a real HTTPS receiver), a test event, a failed delivery redelivered, a
 * settings change taking effect on the API and audited, an invited reviewer refused the owners' pages on the
 * server, a removed member signed out, and the usage page against counts made through the API.
 */
import fs from 'node:fs';
import { createHmac } from 'node:crypto';
import { expect, test, type Page } from '@playwright/test';
import { startReceiver, type Received } from '../test/helpers/https-receiver';
import { apiClient } from '../test/helpers/api-client';
import { admin, formAlert, origin, PASSWORD, signIn, submittedCase, workspace } from './admin-helpers';
import { ops, RECEIVER_TLS, state } from './env';

const verifies = (r: Received, secret: string) =>
  createHmac('sha256', secret).update(`${r.headers['x-timestamp']}.${r.body}`).digest('hex') ===
  r.headers['x-hmac-signature'];

/** Creates a key on the keys page and returns its secret as shown (the only time it is). */
async function createKey(page: Page, mode: 'test' | 'live', active = false) {
  await page.getByLabel('Mode').selectOption(mode);
  if (active) await page.getByLabel('Make it the active key').check();
  await page.getByRole('button', { name: 'Create key' }).click();
  const shown = page.getByTestId('new-secret');
  await expect(shown).toBeVisible();
  return (await shown.innerText()).trim();
}

const keyRow = (page: Page, secret: string) =>
  page
    .getByTestId('keys')
    .locator('tbody tr')
    .filter({ hasText: `…${secret.slice(-4)}` });

test.describe('owners run their workspace', () => {
  test('an owner creates a key, signs a real request with it; the secret is never shown again; the active key cannot be deleted', async ({
    page,
  }) => {
    const ws = workspace('owner keys');
    const owner = admin([ws.id, 'owner']);
    await signIn(page, owner);
    await page.getByRole('link', { name: 'Workspaces' }).click();
    await page
      .getByTestId('workspaces')
      .getByRole('link', { name: /owner keys/ })
      .click();
    await expect(page).toHaveURL(new RegExp(`/admin/workspaces/${ws.id}/keys$`));
    await expect(page.getByTestId('api-key')).toHaveText(ws.apiKey);
    const secret = await createKey(page, 'test');
    expect(secret).toMatch(/^sk_test_[A-Za-z0-9]{56}$/);

    // A real signed request with the secret as shown.
    await new Promise((r) => setTimeout(r, 50));
    const api = apiClient(state().base, ws.apiKey, secret);
    const r = await api.json('POST', '/v1/verifications', JSON.stringify({ external_id: 'e2e-owner-key' }));
    expect(r.data?.status).toBe('created');
    // Its last use shows (recorded at most once a minute per key).
    await expect(async () => {
      await page.reload();
      await expect(keyRow(page, secret).getByTestId('last-used')).not.toHaveText('Never');
    }).toPass({ timeout: 20_000 });

    // Never again: not in the page, not in its source, not on the other pages of the workspace.
    await expect(page.getByTestId('new-secret')).toHaveCount(0);
    for (const p of ['keys', 'webhooks', 'settings', 'members', 'usage']) {
      const src = await (await page.request.get(`${origin()}/admin/workspaces/${ws.id}/${p}`)).text();
      expect(src.includes(secret), `${p} page source`).toBe(false);
      expect(src.includes(secret.slice(8, 40)), `${p} page source, partly`).toBe(false);
    }
    expect(await page.content()).not.toContain(secret);

    // The active key (the live one) is refused.
    const live = keyRow(page, ws.live);
    await expect(live).toContainText('Active');
    await live.getByRole('button', { name: /^Delete/ }).click();
    await live.getByRole('button', { name: 'Delete key' }).click();
    await expect(live.getByRole('alert')).toContainText('active key');
    await page.reload();
    await expect(keyRow(page, ws.live)).toContainText('Active');
    // A key that is not active goes.
    const mine = keyRow(page, secret);
    await mine.getByRole('button', { name: /^Delete/ }).click();
    await mine.getByRole('button', { name: 'Delete key' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'deleted' })).toContainText(`…${secret.slice(-4)} deleted`);
    await expect(keyRow(page, secret)).toHaveCount(0);
    const refused = await api.json('POST', '/v1/verifications', '{}');
    expect(refused.error?.code).toBe('INVALID_SIGNATURE');
  });

  test('a rotation: the next webhook verifies with the new active key at an HTTPS receiver; a test event arrives and verifies', async ({
    page,
  }) => {
    const receiver = await startReceiver(JSON.parse(fs.readFileSync(RECEIVER_TLS, 'utf8')));
    try {
      const ws = workspace('owner rotation', ['--webhook-url', receiver.url]);
      const owner = admin([ws.id, 'owner']);
      await signIn(page, owner);
      await page.goto(`${origin()}/admin/workspaces/${ws.id}/keys`);
      const next = await createKey(page, 'live');
      const row = keyRow(page, next);
      await row.getByRole('button', { name: /^Activate/ }).click();
      await row.getByRole('button', { name: 'Activate', exact: true }).click();
      await expect(page.getByRole('status').filter({ hasText: 'is now the active key' })).toBeVisible();
      await expect(keyRow(page, next)).toContainText('Active');

      // The next webhook (a test-mode case reaching review) is signed with the new key, not the old one.
      const { id } = await submittedCase(ws, 'test', { external_id: 'e2e-rotation' });
      await expect
        .poll(() => receiver.received.filter((x) => x.body.includes(id)).length, { timeout: 30_000 })
        .toBeGreaterThan(0);
      const hook = receiver.received.find((x) => x.body.includes(id))!;
      expect(verifies(hook, next)).toBe(true);
      expect(verifies(hook, ws.live)).toBe(false);
      // Now the old key may go.
      const old = keyRow(page, ws.live);
      await old.getByRole('button', { name: /^Delete/ }).click();
      await old.getByRole('button', { name: 'Delete key' }).click();
      await expect(page.getByRole('status').filter({ hasText: 'deleted' })).toBeVisible();

      // A test event: a sample payload signed like a real one, marked by X-Webhook-Test.
      await page.goto(`${origin()}/admin/workspaces/${ws.id}/webhooks`);
      await page.getByRole('button', { name: 'Send a test event' }).click();
      await expect(page.getByRole('status').filter({ hasText: 'Test event' })).toContainText('delivered: HTTP 200');
      const t = receiver.received.find((x) => x.headers['x-webhook-test'] === 'true')!;
      expect(t).toBeTruthy();
      expect(verifies(t, next)).toBe(true);
      expect(JSON.parse(t.body)).toMatchObject({ status: 'approved', external_id: 'open-verify-test-event' });
    } finally {
      await receiver.close();
    }
  });

  test('a failed delivery shows in the log with each attempt, and is redelivered', async ({ page }) => {
    const receiver = await startReceiver(JSON.parse(fs.readFileSync(RECEIVER_TLS, 'utf8')), [{ status: 503 }]);
    try {
      const ws = workspace('owner deliveries', ['--webhook-url', receiver.url]);
      const owner = admin([ws.id, 'owner']);
      const { id } = await submittedCase(ws, 'test', { external_id: 'e2e-failing-hook' });
      // Four attempts, 2 s apart in this server (WEBHOOK_RETRY_DELAYS=2,2,2).
      await expect
        .poll(() => ops('webhook:list', '--verification', id).webhook_events[0]?.state, { timeout: 60_000 })
        .toBe('failed');
      await signIn(page, owner);
      await page.goto(`${origin()}/admin/workspaces/${ws.id}/webhooks?failed=1`);
      const event = page.getByTestId('deliveries').locator('li').filter({ hasText: 'e2e-failing-hook' });
      await expect(event.getByTestId('event-state')).toHaveText('failed');
      await expect(event.locator('tbody tr')).toHaveCount(4);
      await expect(event.locator('tbody tr').first()).toContainText('503');
      await expect(event.locator('tbody tr').first()).toContainText('reply 503');
      receiver.script([{ status: 200 }]);
      await event.getByRole('button', { name: 'Send again' }).click();
      await expect(page.getByRole('status').filter({ hasText: 'Sent again' })).toBeVisible();
      await expect
        .poll(() => ops('webhook:list', '--verification', id).webhook_events[0]?.state, { timeout: 30_000 })
        .toBe('delivered');
      await page.goto(`${origin()}/admin/workspaces/${ws.id}/webhooks`);
      await expect(
        page.getByTestId('deliveries').locator('li').filter({ hasText: 'e2e-failing-hook' }).getByTestId('event-state'),
      ).toHaveText('delivered');
      const last = receiver.received[receiver.received.length - 1];
      expect(verifies(last, ws.live)).toBe(true);
      await page.goto(`${origin()}/admin/workspaces/${ws.id}/webhooks?failed=1`);
      await expect(page.getByText('No failed event.')).toBeVisible();
    } finally {
      await receiver.close();
    }
  });

  test('a settings change takes effect on the API (the rate limit) and is audited with before and after (the step-up, the wallet offer, request timestamps)', async ({
    page,
  }) => {
    const ws = workspace('owner settings');
    const owner = admin([ws.id, 'owner']);
    await signIn(page, owner);
    await page.goto(`${origin()}/admin/workspaces/${ws.id}/settings`);
    await page.getByLabel('Rate limit per minute').fill('abc');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await expect(formAlert(page)).toContainText('invalid');
    await page.getByLabel('Rate limit per minute').fill('3');
    await page.getByLabel('When the age estimate cannot decide').selectOption('document');
    await page.getByLabel('Digital ID wallet').selectOption('offer');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Settings saved' })).toBeVisible();
    await new Promise((r) => setTimeout(r, 50));
    const api = apiClient(state().base, ws.apiKey, ws.test);
    const codes: (string | undefined)[] = [];
    for (let i = 0; i < 4; i++) codes.push((await api.json('GET', '/v1/consent')).error?.code);
    expect(codes).toEqual([undefined, undefined, undefined, 'RATE_LIMIT']);
    await page.goto(`${origin()}/admin/audit?action=workspace.settings_updated&workspace=${ws.id}`);
    const row = page.getByTestId('audit').locator('tbody tr').filter({ hasText: owner.email });
    await expect(row).toHaveCount(1);
    // Only what changed is under `changes`, with its value before and after.
    await expect(row).toContainText(
      'changes: wallet: after: offer; before: off; estimation fallback: after: document; before: review; rate limit per minute: after: 3; before: 100,000;',
    );
    expect(ops('workspace:settings', '--workspace', ws.id).workspace).toMatchObject({
      estimation_fallback: 'document',
      wallet: 'offer',
    });
    // Request timestamps (off by default): on, a request without X-Request-Timestamp is refused.
    await page.goto(`${origin()}/admin/workspaces/${ws.id}/settings`);
    await page.getByLabel('Require request timestamps').selectOption('true');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Settings saved' })).toBeVisible();
    await new Promise((r) => setTimeout(r, 50));
    expect((await api.json('GET', '/v1/consent')).error?.code).toBe('MISSING_TIMESTAMP');
    await page.goto(`${origin()}/admin/audit?action=workspace.settings_updated&workspace=${ws.id}`);
    await expect(
      page
        .getByTestId('audit')
        .locator('tbody tr')
        .filter({ hasText: 'require request timestamp: after: true; before: false;' }),
    ).toHaveCount(1);
  });

  test("an invited reviewer signs up by the link, reviews, is refused the owners' pages on the server; removed, they are signed out", async ({
    page,
    browser,
  }) => {
    const ws = workspace('owner members');
    const owner = admin([ws.id, 'owner']);
    await submittedCase(ws, 'test', { external_id: 'e2e-invitee-case' });
    await signIn(page, owner);
    await page.goto(`${origin()}/admin/workspaces/${ws.id}/members`);
    const email = `e2e-invitee-${Math.random().toString(36).slice(2, 8)}@example.com`;
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Role', { exact: true }).selectOption('reviewer');
    await page.getByRole('button', { name: 'Invite' }).click();
    const link = (await page.getByTestId('invite-link').innerText()).trim();
    expect(link).toMatch(new RegExp(`^${origin()}/admin/invite/`));
    await expect(page.getByTestId('invites')).toContainText(email);

    // The invitee, in another browser.
    const ctx = await browser.newContext();
    const p2 = await ctx.newPage();
    await p2.goto(link);
    await expect(p2.getByRole('heading', { name: /Join owner members/ })).toBeVisible();
    await p2.getByLabel('Choose a password').fill(PASSWORD);
    await p2.getByLabel('The same password again').fill(PASSWORD);
    await p2.getByRole('button', { name: 'Create my account' }).click();
    await expect(p2).toHaveURL(/\/admin\/queue/);
    await p2.getByRole('link', { name: /^Test/ }).click();
    await expect(p2.getByTestId('queue')).toContainText('e2e-invitee-case');
    await expect(
      p2.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Workspaces' }),
    ).toHaveCount(0);
    // Refused by the server, not just hidden: each owner page answers 404.
    for (const path of [
      `/admin/workspaces/${ws.id}/keys`,
      `/admin/workspaces/${ws.id}/settings`,
      `/admin/workspaces/${ws.id}/members`,
      `/admin/workspaces/${ws.id}/webhooks`,
      `/admin/workspaces/${ws.id}/usage`,
      `/admin/workspaces/${ws.id}/usage/csv`,
      '/admin/workspaces',
      '/admin/consent',
    ]) {
      const res = await p2.goto(`${origin()}${path}`);
      expect(res!.status(), path).toBe(404);
    }
    // The link worked once.
    await p2.goto(link);
    await expect(p2.getByText('has been used, withdrawn or has expired')).toBeVisible();

    // Removed by the owner: signed out at once.
    await page.reload();
    const member = page.getByTestId('members').locator(`[data-member="${email}"]`);
    await expect(member.getByTestId('member-role')).toHaveText('reviewer');
    await member.getByRole('button', { name: /^Remove/ }).click();
    await member.getByRole('button', { name: 'Remove', exact: true }).click();
    await expect(page.getByRole('status').filter({ hasText: 'removed' })).toContainText(`${email} removed`);
    await p2.goto(`${origin()}/admin/queue`);
    await expect(p2).toHaveURL(/\/admin\/sign-in/);
    // The last owner stays.
    await page.reload();
    const me = page.getByTestId('members').locator(`[data-member="${owner.email}"]`);
    await me.getByRole('button', { name: /^Remove/ }).click();
    await me.getByRole('button', { name: 'Remove', exact: true }).click();
    await expect(me.getByRole('alert')).toContainText('last owner');
    await ctx.close();
  });

  test('the usage page matches counts made through the API, and its CSV', async ({ page }) => {
    const ws = workspace('owner usage');
    const owner = admin([ws.id, 'owner']);
    await new Promise((r) => setTimeout(r, 50));
    const live = apiClient(state().base, ws.apiKey, ws.live);
    const testApi = apiClient(state().base, ws.apiKey, ws.test);
    for (let i = 0; i < 3; i++) expect((await live.json('POST', '/v1/verifications', '{}')).data).toBeTruthy();
    for (let i = 0; i < 2; i++) expect((await testApi.json('POST', '/v1/verifications', '{}')).data).toBeTruthy();
    const { id } = await submittedCase(ws, 'test', { external_id: 'e2e-usage' });
    ops('verification:decide', '--id', id, '--status', 'declined', '--reason', 'fraud_detected');
    await signIn(page, owner);
    await page.goto(`${origin()}/admin/workspaces/${ws.id}/usage`);
    await expect(page.getByTestId('total-live')).toHaveText('3');
    await expect(page.getByTestId('total-test')).toHaveText('3');
    const today = new Date().toISOString().slice(0, 10);
    await page.getByText('The figures per day').click();
    await expect(page.locator(`[data-day="${today}"]`)).toHaveText(`${today}33`);
    await expect(page.locator('[data-decision="test:declined:fraud_detected"]')).toContainText('1');
    const csv = await (await page.request.get(`${origin()}/admin/workspaces/${ws.id}/usage/csv?days=7`)).text();
    expect(csv).toContain(`per_day,${today},live,,,3`);
    expect(csv).toContain(`per_day,${today},test,,,3`);
    expect(csv).toMatch(/decisions,[\d-]+\.\.[\d-]+,test,declined,fraud_detected,1/);
  });

  test('an operator creates a workspace in the UI: its secrets shown once, then its pages', async ({ page }) => {
    const op = admin('operator');
    await signIn(page, op);
    await page.goto(`${origin()}/admin/workspaces`);
    const name = `e2e made ${Math.random().toString(36).slice(2, 8)}`;
    await page.getByLabel('Name').fill(name);
    await page.getByRole('button', { name: 'Create workspace' }).click();
    const liveSecret = (await page.getByTestId('new-workspace-live-secret').innerText()).trim();
    expect(liveSecret).toMatch(/^sk_live_/);
    await expect(page.getByTestId('workspaces')).toContainText(name);
    await page.getByTestId('workspaces').getByRole('link', { name }).click();
    const apiKey = (await page.getByTestId('api-key').innerText()).trim();
    await new Promise((r) => setTimeout(r, 50));
    const r = await apiClient(state().base, apiKey, liveSecret).json('POST', '/v1/verifications', '{}');
    expect(r.data?.status).toBe('created');
    expect(await page.content()).not.toContain(liveSecret);
  });
});

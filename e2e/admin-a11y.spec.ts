/**
 * Every admin page, signed out and signed in, scanned by axe-core (no serious or critical violations) and
 * laid out at 320 px wide without sideways scrolling. Also the security headers on each.
 */
import { expect, test, type Page } from '@playwright/test';
import { totpAt } from '../lib/domain/admin/auth/totp';
import { axe } from './steps';
import { admin, origin, signIn, submittedCase, workspace } from './admin-helpers';
import { ops } from './env';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makeIaca } from '../test/helpers/wallet';

async function check(page: Page, path: string, name: string) {
  for (const width of [1280, 320]) {
    await page.setViewportSize({ width, height: 800 });
    const res = await page.goto(`${origin()}${path}`);
    expect(res!.headers()['cache-control'], name).toBe('no-store');
    expect(res!.headers()['x-frame-options'], name).toBe('DENY');
    expect(res!.headers()['content-security-policy'], name).toMatch(/script-src 'self' 'nonce-/);
    expect(await axe(page), `${name} at ${width} px`).toEqual([]);
    if (width === 320)
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth),
        `${name} fits 320 px`,
      ).toBeLessThanOrEqual(320);
  }
}

// Each scan runs axe twice (desktop and 320 px): minutes on a busy 2-core machine, so each group has room.
test.describe('axe and 320 px on every admin page', () => {
  test.describe.configure({ timeout: 300_000 });

  test('signed out: sign-in, with an error', async ({ page }) => {
    await check(page, '/admin/sign-in', 'sign-in');
    await check(page, '/admin/sign-in?error=AccessDenied', 'sign-in with an error');
  });

  test('lists: queue, search, blocklist, audit, not found, wallet trust', async ({ page }) => {
    const ws = workspace('a11y lists');
    const op = admin('operator');
    const { id } = await submittedCase(ws, 'test', { external_id: 'e2e-a11y-0' });
    ops('blocklist:add', '--verification', id);
    await signIn(page, op);
    await check(page, '/admin/queue', 'queue, live');
    await check(page, `/admin/queue?mode=test&workspace=${ws.id}`, 'queue, test');
    await check(page, '/admin/verifications', 'search');
    await check(page, '/admin/verifications?from=2020-13-45', 'search with an invalid date');
    await check(page, '/admin/blocklist', 'blocklist');
    await check(page, '/admin/audit', 'audit log');
    await check(page, '/admin/verifications/00000000-0000-7000-8000-000000000000', 'not found');
    // The wallet trust list, with a root in it (docs/wallet.md "Trust lists").
    const pem = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ov-a11y-')), 'iaca.pem');
    fs.writeFileSync(pem, (await makeIaca({ name: 'A11y IACA' })).pem);
    ops('wallet-trust:add', '--pem', pem, '--workspace', ws.id);
    await check(page, '/admin/wallet-trust', 'wallet trust list');
  });

  test('cases: in review, decided, the decision dialog', async ({ page }) => {
    const ws = workspace('a11y cases');
    const op = admin('operator');
    const { id } = await submittedCase(ws, 'test', { external_id: 'e2e-a11y-1' });
    const decided = await submittedCase(ws, 'test', { external_id: 'e2e-a11y-2' });
    ops('verification:decide', '--id', decided.id, '--status', 'declined', '--reason', 'identity_mismatch');
    ops('blocklist:add', '--verification', decided.id);
    await signIn(page, op);
    await check(page, `/admin/verifications/${id}`, 'case in review');
    await check(page, `/admin/verifications/${decided.id}`, 'decided case');
    await page.setViewportSize({ width: 320, height: 800 });
    await page.goto(`${origin()}/admin/verifications/${id}`);
    await page.getByRole('button', { name: 'Decline…' }).click();
    await expect(page.getByRole('dialog', { name: 'Decline this case?' })).toBeVisible();
    expect(await axe(page), 'decision dialog').toEqual([]);
  });

  test("owners' pages: workspaces, keys, webhooks with a delivery, settings, members, usage, consent, an invitation", async ({
    page,
    browser,
  }) => {
    const ws = workspace('a11y owners');
    const op = admin('operator');
    const owner = admin([ws.id, 'owner']);
    admin([ws.id, 'reviewer']);
    ops('workspace:settings', '--workspace', ws.id, '--webhook-url', 'https://127.0.0.1:9/hooks');
    await submittedCase(ws, 'test', { external_id: 'e2e-a11y-owner' });
    await signIn(page, owner);
    await check(page, '/admin/workspaces', 'workspaces, an owner');
    await check(page, `/admin/workspaces/${ws.id}/keys`, 'keys');
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByRole('button', { name: 'Create key' }).click();
    await expect(page.getByTestId('new-secret')).toBeVisible();
    expect(await axe(page), 'keys, a new secret shown').toEqual([]);
    await check(page, `/admin/workspaces/${ws.id}/webhooks`, 'webhooks');
    await check(page, `/admin/workspaces/${ws.id}/webhooks?failed=1`, 'webhooks, failures');
    await check(page, `/admin/workspaces/${ws.id}/settings`, 'settings');
    await check(page, `/admin/workspaces/${ws.id}/members`, 'members');
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByLabel('Email').fill(`a11y-${Date.now()}@example.com`);
    await page.getByRole('button', { name: 'Invite' }).click();
    const link = (await page.getByTestId('invite-link').innerText()).trim();
    expect(await axe(page), 'members, an invitation link shown').toEqual([]);
    await check(page, `/admin/workspaces/${ws.id}/usage`, 'usage');
    await check(page, `/admin/workspaces/${ws.id}/usage?days=90`, 'usage, 90 days');
    const ctx = await browser.newContext();
    const p2 = await ctx.newPage();
    await check(p2, new URL(link).pathname, 'invitation');
    await check(p2, '/admin/invite/not-a-real-token-000000000000', 'invitation, used or unknown');
    await ctx.close();
    const opCtx = await browser.newContext();
    const p3 = await opCtx.newPage();
    await signIn(p3, op);
    await check(p3, '/admin/workspaces', 'workspaces, an operator');
    await check(p3, '/admin/consent', 'consent');
    await opCtx.close();
  });

  test('account: two-factor set-up, recovery codes, and the code step', async ({ page, browser }) => {
    const op = admin('operator');
    await signIn(page, op);
    await check(page, '/admin/account', 'account');
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByRole('button', { name: 'Set up two-factor authentication' }).click();
    await expect(page.getByTestId('totp-secret')).toBeVisible();
    expect(await axe(page), 'two-factor set-up').toEqual([]);
    const secret = (await page.getByTestId('totp-secret').innerText()).replace(/\s/g, '');
    await page.getByLabel('Code from the app').fill(totpAt(secret, new Date()));
    await page.getByRole('button', { name: 'Turn on' }).click();
    await expect(page.getByTestId('recovery-codes')).toBeVisible();
    expect(await axe(page), 'recovery codes').toEqual([]);
    const ctx = await browser.newContext();
    const p2 = await ctx.newPage();
    await signIn(p2, op, /\/admin\/sign-in\/code/);
    await check(p2, '/admin/sign-in/code', 'code step');
    await ctx.close();
  });
});

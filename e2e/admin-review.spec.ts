/**
 * Reviewers at work in Debian's Chromium: a test-mode case decided from the queue with the keyboard and
 * its signed webhook received by a real local HTTPS server; a live `refer` case (the age range straddles
 * the threshold) declined with a reason; two reviewers racing on one case; a reviewer of one workspace
 * refused another's case and photo URLs; and the audit entries of it all.
 */
import fs from 'node:fs';
import { createHmac } from 'node:crypto';
import { expect, test, type Browser } from '@playwright/test';
import { startReceiver } from '../test/helpers/https-receiver';
import { admin, formAlert, origin, signIn, submittedCase, workspace } from './admin-helpers';
import { ops, RECEIVER_TLS } from './env';

async function signedInPage(browser: Browser, who: { email: string; password: string }) {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  await signIn(page, who);
  return { ctx, page };
}

test.describe('reviewing cases', () => {
  test('a reviewer decides a test-mode case from the queue; the signed webhook arrives at an HTTPS receiver', async ({
    page,
    browser,
  }) => {
    const receiver = await startReceiver(JSON.parse(fs.readFileSync(RECEIVER_TLS, 'utf8')));
    try {
      const ws = workspace('webhooks', ['--webhook-url', receiver.url]);
      const reviewer = admin([ws.id, 'reviewer']);
      const { id, api } = await submittedCase(ws, 'test', { external_id: 'e2e-review-1' });
      const second = await submittedCase(ws, 'test', { external_id: 'e2e-review-2' });
      await signIn(page, reviewer);
      await page.getByRole('link', { name: /^Test/ }).click();
      await expect(page.getByRole('link', { name: /^Test/ })).toContainText('2');
      // Oldest first.
      await expect(page.getByTestId('queue').getByRole('link')).toHaveText([/e2e-review-1/, /e2e-review-2/]);
      await page
        .getByTestId('queue')
        .getByRole('link', { name: /e2e-review-1/ })
        .click();
      await expect(page).toHaveURL(new RegExp(`/admin/verifications/${id}$`));
      // j and k: the next and the previous case of the queue.
      await page.locator('[data-keys-ready]').waitFor();
      await page.keyboard.press('j');
      await expect(page).toHaveURL(new RegExp(`/admin/verifications/${second.id}$`));
      await page.locator('[data-keys-ready]').waitFor();
      await page.keyboard.press('k');
      await expect(page).toHaveURL(new RegExp(`/admin/verifications/${id}$`));
      // The selfie, decrypted for this view.
      const img = page.getByRole('img', { name: /^Selfie of case/ });
      await expect(img).toBeVisible();
      await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.naturalWidth)).toBeGreaterThan(100);
      await expect(page.locator('[data-check="face_count"]')).toContainText('Passed');
      // Keyboard: a opens the confirmation; the note goes to the audit log.
      await page.locator('[data-keys-ready]').waitFor();
      await page.keyboard.press('a');
      const dialog = page.getByRole('dialog', { name: 'Approve this case?' });
      await expect(dialog).toBeVisible();
      await dialog.getByLabel(/Note for the audit log/).fill('Selfie is clear; test approval.');
      await dialog.getByRole('button', { name: 'Approve' }).click();
      // Decided: on to the next case of the queue, with word of what was done.
      await expect(page).toHaveURL(new RegExp(`/admin/verifications/${second.id}\\?decided=${id}`));
      await expect(page.getByRole('status').filter({ hasText: 'approved' })).toBeVisible();
      expect((await api.get(id)).status).toBe('approved');

      // The webhook: signed with the workspace's active key over `{timestamp}.{raw body}`.
      await expect
        .poll(() => receiver.received.filter((r) => JSON.parse(r.body).status === 'approved').length, {
          timeout: 30_000,
        })
        .toBe(1);
      const hook = receiver.received.find((r) => JSON.parse(r.body).status === 'approved')!;
      const ts = String(hook.headers['x-timestamp']);
      const expected = createHmac('sha256', ws.live).update(`${ts}.${hook.body}`).digest('hex');
      expect(hook.headers['x-hmac-signature']).toBe(expected);
      expect(hook.headers['x-auth-client']).toBe(ws.apiKey);
      expect(JSON.parse(hook.body)).toMatchObject({
        verification_id: id,
        status: 'approved',
        external_id: 'e2e-review-1',
        reason: null,
      });

      // The audit entries, as an operator reads them: opened, photo viewed, decided with the note.
      const op = await signedInPage(browser, admin('operator'));
      await op.page.goto(`${origin()}/admin/audit?verification=${id}`);
      const rows = await op.page.getByTestId('audit').locator('tbody tr').allInnerTexts();
      const mine = rows.filter((r) => r.includes(reviewer.email));
      expect(
        mine.some((r) => r.includes('verification.decided') && r.includes('Selfie is clear; test approval.')),
      ).toBe(true);
      expect(mine.some((r) => r.includes('verification.viewed'))).toBe(true);
      expect(mine.some((r) => r.includes('media.viewed'))).toBe(true);
      await op.ctx.close();
    } finally {
      await receiver.close();
    }
  });

  test('a live refer case (age range across the threshold) is declined with a reason', async ({ page }) => {
    // The age model's estimate for the test face, from an approval at the default threshold…
    const probe = workspace('refer probe');
    const first = await submittedCase(probe, 'live');
    const decided = await first.api.waitDecided(first.id);
    const age = decided.result.estimated_age as number;
    // …then a threshold at that age: the estimate's range (lower end under it, upper end over it) straddles it, so a person decides.
    const ws = workspace('refer', ['--age-threshold', String(age)]);
    const { id, api } = await submittedCase(ws, 'live', { external_id: 'e2e-refer-1' });
    const v = await api.waitDecided(id);
    expect([v.status, v.result.decision]).toEqual(['review', 'refer']);

    const reviewer = admin([ws.id, 'reviewer']);
    await signIn(page, reviewer);
    await expect(page.getByRole('link', { name: /^Live/ })).toContainText('1');
    await page
      .getByTestId('queue')
      .getByRole('link', { name: /e2e-refer-1/ })
      .click();
    await expect(page.locator('[data-check="estimated_age"]')).toContainText('straddles the threshold');
    await expect(page.locator('[data-check="liveness"]')).toBeVisible();
    await page.getByRole('button', { name: 'Decline…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Decline this case?' });
    await dialog.getByLabel('Reason').selectOption('age_below_threshold');
    await dialog.getByRole('button', { name: 'Decline' }).click();
    await expect(page).toHaveURL(/decided=/);
    expect(await api.get(id)).toMatchObject({ status: 'declined', reason: 'age_below_threshold' });
    await page.goto(`${origin()}/admin/verifications/${id}`);
    await expect(page.getByTestId('decision-summary')).toContainText(
      `Declined (Under the age threshold) by ${reviewer.email}`,
    );
    await expect(page.getByTestId('timeline')).toContainText('The pipeline: in review');
  });

  test('two reviewers decide one case at once: one wins, the other is told who decided what', async ({ browser }) => {
    const ws = workspace('race');
    const ann = admin([ws.id, 'reviewer']);
    const bob = admin([ws.id, 'owner']);
    const { id, api } = await submittedCase(ws, 'test');
    const a = await signedInPage(browser, ann);
    const b = await signedInPage(browser, bob);
    for (const p of [a.page, b.page]) await p.goto(`${origin()}/admin/verifications/${id}`);
    await a.page.getByRole('button', { name: 'Approve' }).click();
    await b.page.getByRole('button', { name: 'Decline…' }).click();
    await b.page.getByRole('dialog').getByLabel('Reason').selectOption('fraud_detected');
    await Promise.all([
      a.page.getByRole('dialog').getByRole('button', { name: 'Approve' }).click(),
      b.page.getByRole('dialog').getByRole('button', { name: 'Decline' }).click(),
    ]);
    // Clicking returns before the server answers: wait for the decision to land.
    await expect.poll(async () => (await api.get(id)).status, { timeout: 30_000 }).not.toBe('review');
    const final = (await api.get(id)).status as string;
    expect(['approved', 'declined']).toContain(final);
    const [winner, loserPage] = final === 'approved' ? [ann, b.page] : [bob, a.page];
    await expect(formAlert(loserPage)).toContainText(`Already decided by ${winner.email}`);
    await expect(loserPage.getByTestId('decided-by')).toContainText(`set it to ${final}`);
    // Nothing decided twice: one decision event, one decision webhook.
    const events = ops('webhook:list', '--verification', id).webhook_events.map((e: { status: string }) => e.status);
    expect(events).toEqual(['review', final]);
    await a.ctx.close();
    await b.ctx.close();
  });

  test("a reviewer of one workspace gets 404 for another workspace's case and photo URLs", async ({ browser }) => {
    const wsA = workspace('tenant A');
    const wsB = workspace('tenant B');
    const revA = admin([wsA.id, 'reviewer']);
    const ownB = admin([wsB.id, 'owner']);
    const { id } = await submittedCase(wsB, 'test', { external_id: 'e2e-tenant-b' });
    const b = await signedInPage(browser, ownB);
    await b.page.goto(`${origin()}/admin/verifications/${id}`);
    const src = (await b.page.getByRole('img', { name: /^Selfie of case/ }).getAttribute('src'))!;
    const own = await b.page.request.get(origin() + src);
    expect(own.status()).toBe(200);
    expect(own.headers()['cache-control']).toBe('no-store');
    expect(own.headers()['content-type']).toBe('image/jpeg');

    const a = await signedInPage(browser, revA);
    const pageRes = await a.page.goto(`${origin()}/admin/verifications/${id}`);
    expect(pageRes!.status()).toBe(404);
    await expect(a.page.getByRole('heading', { level: 1 })).toHaveText('Not found');
    // The photo URL another admin was given does not open in this browser (another session, another workspace).
    expect((await a.page.request.get(origin() + src)).status()).toBe(404);
    // Nor does a made-up or signed-out one.
    expect((await a.page.request.get(`${origin()}/admin/media/${'x'.repeat(40)}.${'y'.repeat(32)}`)).status()).toBe(
      404,
    );
    const anon = await browser.newContext();
    expect((await anon.request.get(origin() + src)).status()).toBe(404);
    await anon.close();
    // Search cannot find it either.
    await a.page.goto(`${origin()}/admin/verifications?q=${id}`);
    await expect(a.page.getByText('No verification matches.')).toBeVisible();
    await a.page.goto(`${origin()}/admin/verifications?q=e2e-tenant-b`);
    await expect(a.page.getByText('No verification matches.')).toBeVisible();

    // Audit: the owner's photo views are there, the refused requests wrote nothing in the reviewer's name.
    await b.page.goto(`${origin()}/admin/audit?verification=${id}&action=media.viewed`);
    const rows = await b.page.getByTestId('audit').locator('tbody tr').allInnerTexts();
    expect(rows.length).toBeGreaterThanOrEqual(2);
    expect(rows.every((r) => r.includes(ownB.email))).toBe(true);
    await a.ctx.close();
    await b.ctx.close();
  });
});

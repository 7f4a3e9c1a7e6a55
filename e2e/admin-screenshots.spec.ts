/**
 * npm run screenshots: each admin page at phone and desktop width, into docs/screenshots/ (linked from
 * docs/admin-guide.md). The case shown is a live `refer` case with a duplicate account beside it. Skipped in the
 * normal test run.
 */
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { expect, test } from '@playwright/test';
import { totpAt } from '../lib/domain/admin/auth/totp';
import { admin, origin, photo, signIn, submittedCase, workspace } from './admin-helpers';
import { FACE_JPEG, ops } from './env';

test.skip(!process.env.SCREENSHOTS, 'run with npm run screenshots');

// SCREENSHOTS_DIR: somewhere else (a before/after comparison of the admin pages keeps docs/screenshots as it is).
const OUT = process.env.SCREENSHOTS_DIR
  ? path.resolve(process.env.SCREENSHOTS_DIR)
  : path.resolve(import.meta.dirname, '../docs/screenshots');
const SIZES = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 900 } };

test('admin pages at phone and desktop width', async ({ browser }) => {
  test.setTimeout(600_000);
  fs.mkdirSync(OUT, { recursive: true });
  // A workspace whose age threshold sits inside the test face's estimated range: live cases go to review.
  const probe = workspace('Probe');
  const first = await submittedCase(probe, 'live');
  const age = (await first.api.waitDecided(first.id)).result.estimated_age as number;
  const ws = workspace('Acme Bank', ['--age-threshold', String(age)]);
  const other = workspace('Northwind Games');
  const face = fs.readFileSync(FACE_JPEG);
  const a = await submittedCase(ws, 'live', { external_id: 'user-1001' }, face);
  await a.api.waitDecided(a.id);
  // The same person again under another account, in a slightly different picture: a duplicate.
  const { width = 0, height = 0 } = await sharp(face).metadata();
  const crop = {
    left: Math.round(width * 0.02),
    top: Math.round(height * 0.02),
    width: Math.round(width * 0.96),
    height: Math.round(height * 0.96),
  };
  const again = await sharp(face).extract(crop).resize(width, height).modulate({ brightness: 1.04 }).jpeg().toBuffer();
  const b = await submittedCase(ws, 'live', { external_id: 'user-2002' }, again);
  await b.api.waitDecided(b.id);
  await submittedCase(ws, 'test', { external_id: 'qa-test-7' }, photo('grace_hopper.jpg'));
  const older = await submittedCase(other, 'test', { external_id: 'gamer-88' });
  ops('verification:decide', '--id', older.id, '--status', 'declined', '--reason', 'fraud_detected');
  ops('blocklist:add', '--verification', older.id);
  const op = admin('operator');

  for (const [device, viewport] of Object.entries(SIZES)) {
    const ctx = await browser.newContext({ viewport });
    const page = await ctx.newPage();
    const shot = (name: string) =>
      page.screenshot({ path: path.join(OUT, `admin-${name}-${device}.png`), fullPage: true, animations: 'disabled' });
    await page.goto(`${origin()}/admin/sign-in`);
    await shot('1-sign-in');
    await signIn(page, op);
    await page.goto(`${origin()}/admin/queue?workspace=${ws.id}&mode=live`);
    await expect(page.getByTestId('queue')).toBeVisible();
    await shot('2-queue');
    await page.goto(`${origin()}/admin/verifications/${b.id}`);
    await expect(page.getByRole('img', { name: /^Selfie of case/ })).toBeVisible();
    await page.waitForFunction(() => [...document.images].every((i) => i.complete && i.naturalWidth > 0));
    await shot('3-case');
    await page.getByRole('button', { name: 'Decline…' }).click();
    // The dialog over the page as the reviewer sees it (a full-page shot would show the backdrop over one screen only).
    await page.screenshot({ path: path.join(OUT, `admin-4-decision-${device}.png`), animations: 'disabled' });
    await page.keyboard.press('Escape');
    await page.goto(`${origin()}/admin/verifications?mode=live`);
    await shot('5-search');
    await page.goto(`${origin()}/admin/blocklist`);
    await shot('6-blocklist');
    await page.goto(`${origin()}/admin/audit`);
    await shot('7-audit');
    await page.goto(`${origin()}/admin/account`);
    await shot('8-account');
    await ctx.close();
  }

  // The owners' pages (issue 15), as an owner of Acme Bank: a key just created, a failed delivery, an invitation.
  const owner = admin([ws.id, 'owner']);
  admin([ws.id, 'reviewer']);
  ops('workspace:settings', '--workspace', ws.id, '--webhook-url', 'https://127.0.0.1:9/hooks/open-verify');
  const failing = await submittedCase(ws, 'test', { external_id: 'qa-test-8' });
  await expect
    .poll(
      () =>
        ops('webhook:list', '--verification', failing.id).webhook_events.some(
          (e: { state: string }) => e.state === 'failed',
        ),
      { timeout: 90_000 },
    )
    .toBe(true);
  for (const [device, viewport] of Object.entries(SIZES)) {
    const ctx = await browser.newContext({ viewport });
    const page = await ctx.newPage();
    const shot = (name: string) =>
      page.screenshot({ path: path.join(OUT, `admin-${name}-${device}.png`), fullPage: true, animations: 'disabled' });
    await signIn(page, owner);
    await page.goto(`${origin()}/admin/workspaces`);
    await shot('12-workspaces');
    await page.goto(`${origin()}/admin/workspaces/${ws.id}/keys`);
    await page.getByRole('button', { name: 'Create key' }).click();
    await expect(page.getByTestId('new-secret')).toBeVisible();
    await shot('13-keys');
    await page.goto(`${origin()}/admin/workspaces/${ws.id}/webhooks`);
    await shot('14-webhooks');
    await page.goto(`${origin()}/admin/workspaces/${ws.id}/settings`);
    await shot('15-settings');
    await page.goto(`${origin()}/admin/workspaces/${ws.id}/members`);
    await page.getByLabel('Email').fill(`new-reviewer-${device}@example.com`);
    await page.getByRole('button', { name: 'Invite' }).click();
    await expect(page.getByTestId('invite-link')).toBeVisible();
    const link = (await page.getByTestId('invite-link').innerText()).trim();
    await shot('16-members');
    await page.goto(`${origin()}/admin/workspaces/${ws.id}/usage`);
    await shot('17-usage');
    const other = await browser.newContext({ viewport });
    const invitee = await other.newPage();
    await invitee.goto(link);
    await invitee.screenshot({
      path: path.join(OUT, `admin-18-invitation-${device}.png`),
      fullPage: true,
      animations: 'disabled',
    });
    await other.close();
    await ctx.close();
    const opCtx = await browser.newContext({ viewport });
    const opPage = await opCtx.newPage();
    await signIn(opPage, op);
    await opPage.goto(`${origin()}/admin/consent`);
    await opPage.screenshot({
      path: path.join(OUT, `admin-19-consent-${device}.png`),
      fullPage: true,
      animations: 'disabled',
    });
    await opCtx.close();
  }

  // Two-factor: the set-up page, the recovery codes, and the code step at the next sign-in.
  for (const [device, viewport] of Object.entries(SIZES)) {
    const t = admin('operator');
    const ctx = await browser.newContext({ viewport });
    const page = await ctx.newPage();
    const shot = (name: string) =>
      page.screenshot({ path: path.join(OUT, `admin-${name}-${device}.png`), fullPage: true, animations: 'disabled' });
    await signIn(page, t);
    await page.goto(`${origin()}/admin/account`);
    await page.getByRole('button', { name: 'Set up two-factor authentication' }).click();
    await expect(page.getByTestId('totp-secret')).toBeVisible();
    await shot('9-two-factor-setup');
    const secret = (await page.getByTestId('totp-secret').innerText()).replace(/\s/g, '');
    await page.getByLabel('Code from the app').fill(totpAt(secret, new Date()));
    await page.getByRole('button', { name: 'Turn on' }).click();
    await expect(page.getByTestId('recovery-codes')).toBeVisible();
    await shot('10-recovery-codes');
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await signIn(page, t, /\/admin\/sign-in\/code/);
    await shot('11-code-step');
    await ctx.close();
  }
});

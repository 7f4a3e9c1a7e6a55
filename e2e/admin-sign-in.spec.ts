/**
 * Signing in to the admin area in Debian's Chromium: a signed-out visitor is sent to sign-in and back,
 * a wrong password and an unknown email get the same answer, repeated failures are throttled, and a
 * second factor is set up with a QR code's key and then asked for at sign-in (TOTP, or a recovery code).
 */
import { expect, test } from '@playwright/test';
import { totpAt } from '../lib/domain/admin/auth/totp';
import { admin, formAlert, origin, signIn } from './admin-helpers';
import { ops } from './env';

test.describe('admin sign-in', () => {
  test('a signed-out visitor is sent to sign-in, then back to the page they asked for', async ({ page }) => {
    const a = admin('operator');
    const res = await page.goto(`${origin()}/admin/verifications?status=review`);
    expect(res!.status()).toBeLessThan(400);
    await expect(page).toHaveURL(/\/admin\/sign-in\?next=%2Fadmin%2Fverifications%3Fstatus%3Dreview/);
    expect(res!.headers()['cache-control']).toBe('no-store');
    expect(res!.headers()['x-robots-tag']).toBe('noindex, nofollow');
    expect(res!.headers()['content-security-policy']).toMatch(/frame-ancestors 'none'/);
    await page.getByLabel('Email').fill(a.email);
    await page.getByLabel('Password').fill(a.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect(page).toHaveURL(/\/admin\/verifications\?status=review$/);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Verifications');
    const cookies = await page.context().cookies();
    const session = cookies.find((c) => c.name.endsWith('authjs.session-token'));
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
    // Signing out ends the session on the server: the old cookie no longer opens anything.
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await expect(page).toHaveURL(/\/admin\/sign-in/);
    await page.context().addCookies([session!]);
    await page.goto(`${origin()}/admin/queue`);
    await expect(page).toHaveURL(/\/admin\/sign-in/);
  });

  test('a NUL or an unpaired surrogate (text Postgres cannot store): a form error at sign-in, a filter error in the search and audit pages, never a 500', async ({
    page,
  }) => {
    const a = admin('operator');
    // The sign-in form, with a NUL in the email: the answer of a wrong password.
    await page.goto(`${origin()}/admin/sign-in`);
    await page.getByLabel('Email').fill(`${a.email.slice(0, 3)}\u0000${a.email.slice(3)}`);
    await page.getByLabel('Password').fill(a.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect(formAlert(page)).toContainText('The email or password is not right.');
    await signIn(page, a);
    const pages = [
      ['/admin/verifications?q=%00', 'q'],
      ['/admin/verifications?q=a%00b&status=review', 'q'],
      ['/admin/audit?actor=%00', 'actor'],
      ['/admin/audit?verification=%00', 'verification'],
      ['/admin/audit?actor=op%00%40example.com&action=media.uploaded', 'actor'],
    ];
    for (const [path, field] of pages) {
      const res = await page.goto(`${origin()}${path}`);
      expect([path, res!.status()]).toEqual([path, 200]);
      await expect(page.locator('#main [role="alert"]')).toContainText(
        `${field}: Contains a NUL character or an unpaired surrogate.`,
      );
    }
    // Pages that read other query parameters, and paths with a NUL: an ordinary page, an empty result or a 404.
    for (const path of [
      '/admin/queue?after=%00&workspace=%00&decided=%00&status=%00&reason=%00',
      '/admin/blocklist?workspace=%00',
      '/admin/verifications/%00',
      '/admin/verifications/a%00b?decided=%00',
      '/admin/sign-in?next=%00&error=%00',
    ]) {
      const res = await page.goto(`${origin()}${path}`);
      expect([path, res!.status()]).toEqual([path, expect.any(Number)]);
      expect([path, res!.status() < 500]).toEqual([path, true]);
    }
  });

  test('a wrong password and an unknown email get the same answer; repeated failures are throttled', async ({
    page,
  }) => {
    const a = admin('operator');
    const attempt = async (email: string, password: string) => {
      await page.goto(`${origin()}/admin/sign-in`);
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(password);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      return formAlert(page).innerText();
    };
    const wrong = await attempt(a.email, 'not the password at all');
    const unknown = await attempt(`nobody-${Date.now()}@example.com`, 'not the password at all');
    expect(wrong).toBe('The email or password is not right.');
    expect(unknown).toBe(wrong);
    // Five failures lock the account for a while, whoever tries, whatever the password.
    for (let i = 0; i < 3; i++) await attempt(a.email, 'still not the password');
    expect(await attempt(a.email, 'and not this one either')).toMatch(
      /^Too many attempts\. Try again in \d+ minutes\.$/,
    );
    expect(await attempt(a.email, a.password)).toMatch(/^Too many attempts/);
    await expect(page).toHaveURL(/\/admin\/sign-in/);
  });

  test('two-factor: set up with the key beside the QR code, then asked for at sign-in; a recovery code works once', async ({
    page,
  }) => {
    const a = admin('operator', ['--require-totp']);
    // Required for this admin: the first sign-in leads to the set-up, nothing else opens until it is done.
    await signIn(page, a, /\/admin\/account/);
    await expect(page.getByText('Your account needs two-factor authentication')).toBeVisible();
    await page.goto(`${origin()}/admin/queue`);
    await expect(page).toHaveURL(/\/admin\/account/);
    await page.getByRole('button', { name: 'Set up two-factor authentication' }).click();
    await expect(page.getByRole('img', { name: 'QR code to scan with an authenticator app' })).toBeVisible();
    const secret = (await page.getByTestId('totp-secret').innerText()).replace(/\s/g, '');
    await page.getByLabel('Code from the app').fill('000000');
    await page.getByRole('button', { name: 'Turn on' }).click();
    await expect(formAlert(page)).toContainText('not right');
    await page.getByLabel('Code from the app').fill(totpAt(secret, new Date()));
    await page.getByRole('button', { name: 'Turn on' }).click();
    // allInnerTexts() does not wait: wait for the codes the action answers with first.
    await expect(page.getByTestId('recovery-codes').locator('li')).toHaveCount(10);
    const codes = (await page.getByTestId('recovery-codes').locator('li').allInnerTexts()).map((c) => c.trim());
    expect(codes).toHaveLength(10);
    await page.getByRole('link', { name: 'I have saved them: continue' }).click();
    await expect(page).toHaveURL(/\/admin\/queue/);

    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await signIn(page, a, /\/admin\/sign-in\/code/);
    // The code step cannot be skipped.
    await page.goto(`${origin()}/admin/queue`);
    await expect(page).toHaveURL(/\/admin\/sign-in\/code/);
    await page.getByLabel('Code').fill('123456');
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect(formAlert(page)).toContainText('That code is not right');
    // The next 30-second step's code (the one used at set-up is spent; the window accepts its neighbours).
    await page.getByLabel('Code').fill(totpAt(secret, new Date(Date.now() + 30_000)));
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect(page).toHaveURL(/\/admin\/queue/);

    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await signIn(page, a, /\/admin\/sign-in\/code/);
    await page.getByLabel('Code').fill(codes[0]);
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect(page).toHaveURL(/\/admin\/queue/);
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await signIn(page, a, /\/admin\/sign-in\/code/);
    await page.getByLabel('Code').fill(codes[0]);
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect(formAlert(page)).toContainText('That code is not right');

    // The audit log has all of it, for an operator to read.
    const op = admin('operator');
    const r = ops('admin:list');
    expect(r.admins.find((x: { email: string }) => x.email === a.email)).toMatchObject({
      totp: true,
      totp_required: true,
    });
    const ctx = await page.context().browser()!.newContext();
    const opPage = await ctx.newPage();
    await signIn(opPage, op);
    await opPage.goto(`${origin()}/admin/audit?actor=${encodeURIComponent(a.email)}`);
    const rows = await opPage.getByTestId('audit').locator('tbody tr').allInnerTexts();
    const actions = rows.map((r) => r.split('\t')[2]);
    for (const action of [
      'admin.signed_in',
      'admin.second_factor_enabled',
      'admin.second_factor_passed',
      'admin.sign_in_failed',
      'admin.signed_out',
    ])
      expect(actions).toContain(action);
    await ctx.close();
  });
});

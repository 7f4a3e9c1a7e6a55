/**
 * Single sign-on against a real OpenID provider (the oidc-provider package) that this test starts on the
 * port the server was configured with (e2e/global-setup.ts): an existing admin signs in through it, and
 * an account the service does not know is refused.
 */
import type http from 'node:http';
import { expect, test, type Page } from '@playwright/test';
import Provider from 'oidc-provider';
import { admin, formAlert, origin } from './admin-helpers';
import { OIDC, state } from './env';

let server: http.Server;

test.beforeAll(async () => {
  const issuer = `http://127.0.0.1:${state().oidcPort}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: OIDC.clientId,
        client_secret: OIDC.clientSecret,
        redirect_uris: [`${origin()}/api/auth/callback/oidc`],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    // The development login form accepts any login: the login typed is the account, and its email.
    findAccount: async (_ctx, sub) => ({
      accountId: sub,
      claims: async () => ({ sub, email: sub, email_verified: true, name: sub.split('@')[0] }),
    }),
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    cookies: { keys: ['e2e-oidc-cookie-key'] },
    features: { devInteractions: { enabled: true } },
  });
  server = provider.listen(state().oidcPort);
});

test.afterAll(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

async function viaIdp(page: Page, email: string) {
  await page.goto(`${origin()}/admin/sign-in`);
  await page.getByRole('button', { name: `Sign in with ${OIDC.name}` }).click();
  await expect(page).toHaveURL(new RegExp(`^http://127\\.0\\.0\\.1:${state().oidcPort}/`));
  await page.locator('input[name="login"]').fill(email);
  await page.locator('input[name="password"]').fill('anything');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
}

test('an admin signs in through the OpenID provider; an unknown account is refused', async ({ page }) => {
  const a = admin('operator');
  await viaIdp(page, a.email);
  await expect(page).toHaveURL(/\/admin\/queue/);
  await expect(page.getByText(a.email)).toBeVisible();
  await page.goto(`${origin()}/admin/account`);
  await expect(page.getByText('Signed in with')).toBeVisible();
  await expect(page.locator('#access')).toContainText('single sign-on');
  await page.goto(`${origin()}/admin/audit?actor=${encodeURIComponent(a.email)}&action=admin.signed_in`);
  await expect(page.getByTestId('audit')).toContainText('oidc');

  const other = await page.context().browser()!.newContext();
  const p2 = await other.newPage();
  await viaIdp(p2, `stranger-${Date.now()}@example.com`);
  await expect(p2).toHaveURL(/\/admin\/sign-in\?error=AccessDenied/);
  await expect(formAlert(p2)).toContainText('has no access here');
  await p2.goto(`${origin()}/admin/queue`);
  await expect(p2).toHaveURL(/\/admin\/sign-in/);
  await other.close();
});

/** What the admin specs share: admins made with the CLI, workspaces, cases waiting for review, signing in. */
import fs from 'node:fs';
import path from 'node:path';
import { expect, type Page } from '@playwright/test';
import { apiClient } from '../test/helpers/api-client';
import { FACE_JPEG, ops, state } from './env';

export const PASSWORD = 'correct horse battery staple';

/** The server's own address (BASE_URL): cookies and Auth.js's redirects use it. */
export const origin = () => `http://localhost:${state().port}`;

const rand = () => Math.random().toString(36).slice(2, 10);

export type Ws = { id: string; apiKey: string; test: string; live: string };

export function workspace(name: string, settings: string[] = []): Ws {
  const c = ops('workspace:create', '--name', `${name} ${rand()}`);
  ops('workspace:settings', '--workspace', c.workspace.id, '--rate-limit-per-minute', '100000', ...settings);
  const secret = (mode: string) => c.secret_keys.find((k: { mode: string }) => k.mode === mode).secret;
  return { id: c.workspace.id, apiKey: c.workspace.api_key, test: secret('test'), live: secret('live') };
}

/** An admin through the CLI: `role` is operator, or [workspace, owner|reviewer]. */
export function admin(role: 'operator' | [string, 'owner' | 'reviewer'] | 'none', extra: string[] = []) {
  const email = `e2e-${rand()}@example.com`;
  const flags =
    role === 'operator' ? ['--operator'] : role === 'none' ? [] : ['--workspace', role[0], '--role', role[1]];
  const r = ops('admin:create', '--email', email, '--password', PASSWORD, ...flags, ...extra);
  if (r.error) throw new Error(JSON.stringify(r.error));
  return { email, password: PASSWORD, id: r.admin.id as string };
}

export const photo = (name: 'astronaut.png' | 'grace_hopper.jpg') =>
  fs.readFileSync(path.resolve(import.meta.dirname, '../.cache/photos', name));

/** A verification submitted through the signed API: test mode goes straight to review. */
export async function submittedCase(
  ws: Ws,
  mode: 'test' | 'live',
  body: object = {},
  selfie: Buffer = fs.readFileSync(FACE_JPEG),
) {
  // ops() blocks the event loop while the CLI runs: let fetch see the keep-alive sockets the server closed
  // meanwhile, or it sends on one of them ("other side closed").
  await new Promise((r) => setTimeout(r, 50));
  const api = apiClient(state().base, ws.apiKey, mode === 'test' ? ws.test : ws.live);
  const id = await api.prepare({ selfie }, body);
  const r = await api.submit(id);
  if (!r.data) throw new Error(JSON.stringify(r.error));
  return { id, api };
}

export async function signIn(page: Page, who: { email: string; password: string }, expectPath = /\/admin\/queue/) {
  await page.goto(`${origin()}/admin/sign-in`);
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page).toHaveURL(expectPath);
}

/** The audit log as an operator sees it, straight from the CLI-free page data: entries for one verification. */
export async function auditActions(page: Page, verificationId: string) {
  await page.goto(`${origin()}/admin/audit?verification=${verificationId}`);
  return page.getByTestId('audit').locator('tbody tr').allInnerTexts();
}

/** The page's own alert (Next's route announcer is an empty role=alert too). */
export const formAlert = (page: Page) => page.locator('#main [role="alert"]');

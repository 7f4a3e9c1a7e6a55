/**
 * The embedded flow (docs/sdks.md "Embedding the flow") in Debian's Chromium with the fake camera: a shop page on
 * another origin than the service includes the browser SDK's single script (sdk/embed, built here) and opens a
 * verification in its modal. The shop is served by this spec over HTTPS (a self-signed certificate, the names
 * shop.example and other.example mapped to this machine) and over plain HTTP on http://localhost:<port>; the
 * service runs on http://127.0.0.1:<port> (e2e/global-setup.ts). `npm run screenshots` also takes the embedded flow
 * at phone and desktop size into docs/screenshots/.
 */
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { expect, test, type Frame, type FrameLocator, type Page } from '@playwright/test';
import { apiClient } from '../test/helpers/api-client';
import { selfSignedCert } from '../test/helpers/https-receiver';
import { cameraLaunch, FACE_Y4M, ops, state } from './env';
// @ts-expect-error: the SDK's build script, a plain ES module without declarations
import { bundles } from '../sdk/embed/build.mjs';

const launch = cameraLaunch(FACE_Y4M);
test.use({
  launchOptions: {
    ...launch,
    args: [...launch.args, '--host-resolver-rules=MAP shop.example 127.0.0.1, MAP other.example 127.0.0.1'],
  },
  ignoreHTTPSErrors: true,
});

type Ev = { type: string; verification_id: string | null; step?: string; status?: string; code?: string };
declare global {
  interface Window {
    __events: Ev[];
    __messages: { origin: string; data: unknown }[];
  }
}

/** The shop: its checkout page, which opens the verification of `?url=` with the SDK; `?camera=off` denies the camera to the page and its frames. */
function shopPage(): http.RequestListener {
  let script: Promise<string> | undefined;
  return async (req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    if (u.pathname === '/open-verify-embed.js') {
      script ??= bundles({ write: false }).then((b: { iife: string }) => b.iife);
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(await script);
      return;
    }
    if (u.pathname !== '/') return void res.writeHead(404).end();
    const headers: http.OutgoingHttpHeaders = { 'content-type': 'text/html; charset=utf-8' };
    if (u.searchParams.get('camera') === 'off') headers['permissions-policy'] = 'camera=()';
    res.writeHead(200, headers).end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Example Shop · Checkout</title>
<style>
body{margin:0;font:16px/1.5 system-ui,sans-serif;background:#f5f5f4;color:#1c1917}
header{background:#1c1917;color:#fff;padding:14px 24px;font-weight:700;letter-spacing:.02em}
main{max-width:680px;margin:24px auto;padding:0 16px}
.card{background:#fff;border-radius:12px;padding:20px 24px;margin-bottom:16px;box-shadow:0 1px 2px rgba(0,0,0,.08)}
h1{font-size:24px;margin:0 0 8px}.row{display:flex;justify-content:space-between;border-top:1px solid #e7e5e4;padding:10px 0}
button{font:inherit;font-weight:600;padding:12px 18px;border:0;border-radius:8px;background:#1c1917;color:#fff;cursor:pointer}
</style></head>
<body><header>Example Shop</header><main>
<div class="card"><h1>Checkout</h1><div class="row"><span>Craft beer selection, 6 bottles</span><span>€18.90</span></div>
<div class="row"><span>Delivery</span><span>€4.50</span></div><div class="row"><strong>Total</strong><strong>€23.40</strong></div></div>
<div class="card"><p>This order contains alcohol. Confirm you are 18 or over, without leaving this page.</p>
<button id="verify" type="button">Verify my age</button> <span id="outcome" role="status"></span></div>
</main>
<script src="/open-verify-embed.js"></script>
<script>
window.__events = []; window.__messages = [];
addEventListener('message', (e) => window.__messages.push({ origin: e.origin, data: e.data }));
document.getElementById('verify').onclick = () => OpenVerifyEmbed.openVerification({
  url: new URLSearchParams(location.search).get('url'),
  onEvent: (e) => window.__events.push(e),
  onComplete: (e) => { document.getElementById('outcome').textContent = 'Thank you: we are confirming your age (' + e.status + ').'; },
});
</script></body></html>`);
  };
}

let httpsShop: https.Server;
let httpShop: http.Server;
const port = (s: http.Server) => (s.address() as AddressInfo).port;
const SHOP = () => `https://shop.example:${port(httpsShop)}`;
const OTHER = () => `https://other.example:${port(httpsShop)}`;
const LOCAL = () => `http://localhost:${port(httpShop)}`;

test.beforeAll(async () => {
  httpsShop = https.createServer(selfSignedCert(), shopPage());
  httpShop = http.createServer(shopPage());
  await new Promise<void>((r) => httpsShop.listen(0, '127.0.0.1', r));
  // Every address: Chromium may resolve localhost to ::1 or 127.0.0.1.
  await new Promise<void>((r) => httpShop.listen(0, r));
});
test.afterAll(async () => {
  await new Promise((r) => httpsShop.close(r));
  await new Promise((r) => httpShop.close(r));
});

/** A workspace of its own (a first live selfie in it is no replay of another's), framable by `origins`. */
function workspace(origins: string[]) {
  const created = ops('workspace:create', '--name', `Embed ${Math.random().toString(36).slice(2, 7)}`);
  const id = created.workspace.id as string;
  ops('workspace:settings', '--workspace', id, '--embed-origins', origins.join(','));
  const key = (mode: string) => created.secret_keys.find((k: { mode: string }) => k.mode === mode).secret as string;
  const client = (mode: 'test' | 'live') => apiClient(state().base, created.workspace.api_key, key(mode));
  return {
    async verification(mode: 'test' | 'live') {
      const api = client(mode);
      const r = await api.json('POST', '/v1/verifications', '{}');
      if (!r.data) throw new Error(JSON.stringify(r.error));
      return { id: r.data.id as string, url: r.data.url as string, api };
    },
  };
}

async function openShop(page: Page, shop: string, url: string, query = '') {
  await page.goto(`${shop}/?url=${encodeURIComponent(url)}${query}`);
  await page.getByRole('button', { name: 'Verify my age' }).click();
  return page.frameLocator('iframe[title="Identity verification"]');
}

const events = (page: Page) => page.evaluate(() => window.__events);
const messages = (page: Page) => page.evaluate(() => window.__messages);

async function consentAndSelfie(f: FrameLocator | Page) {
  await expect(f.getByTestId('step-title')).toHaveText('Consent');
  await f.getByRole('button', { name: 'I have read this and I agree' }).click();
  await expect(f.getByTestId('step-title')).toHaveText('Take a selfie');
  const capture = f.getByRole('button', { name: 'Take photo' });
  await expect(capture).toBeEnabled({ timeout: 30_000 });
  await capture.click();
  await f.getByRole('button', { name: 'Use this photo' }).click();
  // The photo is checked in the browser, then uploaded: a minute on a busy two-core machine.
  await expect(f.getByTestId('step-title')).toHaveText('Ready to submit', { timeout: 60_000 });
  await f.getByRole('button', { name: 'Submit' }).click();
}

/** Each message the shop received came from the service's origin and carries nothing but the event's own fields. */
async function expectNothingPersonal(page: Page, url: string) {
  const all = await messages(page);
  expect(all.length).toBeGreaterThan(0);
  for (const m of all) {
    expect(m.origin).toBe(new URL(url).origin);
    expect(
      Object.keys(m.data as object).every((k) =>
        ['source', 'type', 'verification_id', 'step', 'status', 'code'].includes(k),
      ),
    ).toBe(true);
  }
}

/** The frame the browser refused: it shows Chromium's error page, not the capture page. */
async function refusedFrame(page: Page): Promise<Frame> {
  const child = page.frames().find((f) => f !== page.mainFrame());
  expect(child).toBeDefined();
  await expect.poll(() => child!.url()).toBe('chrome-error://chromewebdata/');
  return child!;
}

test('a live verification embedded by an https origin on embed_origins: consent and selfie in the frame; loaded, step, submitted, completed in order, nothing personal', async ({
  page,
}) => {
  const ws = workspace([SHOP()]);
  const { id, url, api } = await ws.verification('live');
  const frame = await openShop(page, SHOP(), url);
  await consentAndSelfie(frame);
  await expect(frame.getByTestId('result')).toHaveAttribute('data-status', 'approved', { timeout: 60_000 });
  await expect(page.locator('#outcome')).toHaveText('Thank you: we are confirming your age (approved).');
  expect(await events(page)).toEqual([
    { type: 'loaded', verification_id: id, status: 'created' },
    { type: 'step', verification_id: id, step: 'consent' },
    { type: 'step', verification_id: id, step: 'selfie' },
    { type: 'step', verification_id: id, step: 'review' },
    { type: 'submitted', verification_id: id },
    { type: 'completed', verification_id: id, status: 'approved' },
  ]);
  await expectNothingPersonal(page, url);
  expect((await api.get(id)).status).toBe('approved');
});

test('an origin not on embed_origins: the browser refuses the frame, the page sends nothing', async ({ page }) => {
  const refusals: string[] = [];
  page.on('console', (m) => {
    if (/^Framing .* violates the following Content Security Policy directive: "frame-ancestors/.test(m.text()))
      refusals.push(m.text());
  });
  const ws = workspace([SHOP()]);
  const { url } = await ws.verification('live');
  await openShop(page, OTHER(), url);
  await refusedFrame(page);
  await expect.poll(() => refusals.length).toBe(1);
  expect(refusals[0]).toContain(`"frame-ancestors ${SHOP()}"`);
  expect(await messages(page)).toEqual([]);
  expect(await events(page)).toEqual([]);
});

test('http://localhost frames a test-mode verification only: the same origin is refused a live one', async ({
  page,
}) => {
  const ws = workspace([LOCAL()]);
  const test = await ws.verification('test');
  const frame = await openShop(page, LOCAL(), test.url);
  await expect(frame.getByTestId('step-title')).toHaveText('Consent');
  await expect
    .poll(() => events(page))
    .toEqual([
      { type: 'loaded', verification_id: test.id, status: 'created' },
      { type: 'step', verification_id: test.id, step: 'consent' },
    ]);

  const live = await ws.verification('live');
  await openShop(page, LOCAL(), live.url);
  await refusedFrame(page);
  expect(await messages(page)).toEqual([]);
});

test('a page that gives its frames no camera: the SDK offers a new tab, the flow finishes there and the events keep coming', async ({
  page,
}) => {
  const ws = workspace([SHOP()]);
  const { id, url } = await ws.verification('live');
  await openShop(page, SHOP(), url, '&camera=off');
  await expect
    .poll(() => events(page))
    .toEqual([
      { type: 'loaded', verification_id: id, status: 'created' },
      { type: 'error', verification_id: id, code: 'camera_unavailable' },
    ]);
  // The SDK took the frame away at once: its later events cannot come.
  await expect(page.locator('iframe')).toHaveCount(0);
  const [tab] = await Promise.all([
    page.waitForEvent('popup'),
    page.getByRole('button', { name: 'Continue in a new tab' }).click(),
  ]);
  await consentAndSelfie(tab);
  await expect(tab.getByTestId('result')).toHaveAttribute('data-status', 'approved', { timeout: 60_000 });
  await expect
    .poll(async () => (await events(page)).slice(2))
    .toEqual([
      { type: 'loaded', verification_id: id, status: 'created' },
      { type: 'step', verification_id: id, step: 'consent' },
      { type: 'step', verification_id: id, step: 'selfie' },
      { type: 'step', verification_id: id, step: 'review' },
      { type: 'submitted', verification_id: id },
      { type: 'completed', verification_id: id, status: 'approved' },
    ]);
  await expectNothingPersonal(page, url);
});

// npm run screenshots: the embedded flow on a phone (the modal fills the screen) and on a desktop.
const OUT = path.resolve(import.meta.dirname, '../docs/screenshots');
for (const [device, viewport] of Object.entries({
  phone: { width: 390, height: 844 },
  desktop: { width: 1280, height: 860 },
})) {
  test(`embedded flow screenshots, ${device}`, async ({ page }) => {
    test.skip(!process.env.SCREENSHOTS, 'run with npm run screenshots');
    fs.mkdirSync(OUT, { recursive: true });
    await page.setViewportSize(viewport);
    const shot = (name: string) =>
      page.screenshot({ path: path.join(OUT, `embed-${name}-${device}.png`), animations: 'disabled' });
    const ws = workspace([SHOP()]);
    const { url } = await ws.verification('live');
    const frame = await openShop(page, SHOP(), url);
    await expect(frame.getByTestId('consent-text')).toBeVisible();
    await shot('1-consent');
    await frame.getByRole('button', { name: 'I have read this and I agree' }).click();
    await expect(frame.getByRole('button', { name: 'Take photo' })).toBeEnabled({ timeout: 30_000 });
    await shot('2-selfie');
  });
}

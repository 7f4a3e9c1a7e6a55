/**
 * "Use a digital ID" on the hosted capture page (docs/wallet.md), in Debian's Chromium. Chromium exposes the
 * Digital Credentials API on this origin but has no wallet: `navigator.credentials.get` is replaced (addInitScript)
 * by a call into the test wallet running here in Node (page.exposeFunction), which answers as a phone's wallet does.
 * The server verifies the answers for real, against the test issuer's root trusted for this workspace.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { apiClient } from '../test/helpers/api-client';
import { testIssuer, walletRespond, type Credential } from '../test/helpers/wallet';
import type { WalletProtocol } from '../lib/domain/wallet/protocol';
import { spawn } from 'node:child_process';
import { freePort, root, tsx } from '../test/helpers/server';
import { submittedCase } from './admin-helpers';
import { cameraLaunch, FACE_Y4M, ops, state } from './env';
import { acceptConsent, axe } from './steps';

test.use({ launchOptions: cameraLaunch(FACE_Y4M) });

type Ws = { id: string; apiKey: string; test: string; live: string };
let ws: Ws;
let credential: Credential;

test.beforeAll(async () => {
  const c = ops('workspace:create', '--name', 'e2e wallet');
  ops('workspace:settings', '--workspace', c.workspace.id, '--rate-limit-per-minute', '100000', '--wallet', 'offer');
  const secret = (mode: string) => c.secret_keys.find((k: { mode: string }) => k.mode === mode).secret;
  ws = { id: c.workspace.id, apiKey: c.workspace.api_key, test: secret('test'), live: secret('live') };
  const issuer = await testIssuer();
  credential = await issuer.issue();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ov-e2e-wallet-'));
  fs.writeFileSync(path.join(dir, 'iaca.pem'), issuer.ca.pem);
  ops('wallet-trust:add', '--pem', path.join(dir, 'iaca.pem'), '--workspace', ws.id);
  fs.rmSync(dir, { recursive: true, force: true });
});

async function newVerification(mode: 'test' | 'live') {
  const api = apiClient(state().base, ws.apiKey, mode === 'test' ? ws.test : ws.live);
  const r = await api.json('POST', '/v1/verifications', '{}');
  return { id: r.data.id as string, url: r.data.url as string, api };
}

/**
 * The browser's side of a wallet: `navigator.credentials.get` answers with the test wallet, picking the request of
 * `protocol` among those the page passed, or fails as a real one would (`fail`: the DOMException's name).
 */
async function stubWallet(page: Page, o: { protocol?: WalletProtocol; fail?: string; cred?: Credential } = {}) {
  const seen: string[][] = [];
  await page.exposeFunction(
    'testWallet',
    async (protocol: WalletProtocol, data: Record<string, unknown>, origin: string) =>
      (await walletRespond(o.cred ?? credential, protocol, data, origin)).data,
  );
  await page.exposeFunction('walletSaw', (protocols: string[]) => void seen.push(protocols));
  await page.addInitScript(
    ({ protocol, fail }: { protocol?: string; fail?: string }) => {
      const w = window as unknown as {
        testWallet: (p: string, d: unknown, o: string) => Promise<unknown>;
        walletSaw: (p: string[]) => Promise<void>;
      };
      navigator.credentials.get = (async (options: {
        digital: { requests: { protocol: string; data: unknown }[] };
      }) => {
        const requests = options.digital.requests;
        await w.walletSaw(requests.map((r) => r.protocol));
        if (fail) throw new DOMException('The wallet did not share.', fail);
        const chosen = requests.find((r) => r.protocol === protocol) ?? requests[0];
        return {
          type: 'digital',
          protocol: chosen.protocol,
          data: await w.testWallet(chosen.protocol, chosen.data, location.origin),
        };
      }) as unknown as typeof navigator.credentials.get;
    },
    { protocol: o.protocol, fail: o.fail },
  );
  return seen;
}

for (const protocol of ['openid4vp-v1-unsigned', 'org-iso-mdoc'] as const) {
  test(`"Use a digital ID" beside the selfie completes with ${protocol}: approved, age_source wallet`, async ({
    page,
  }) => {
    const seen = await stubWallet(page, { protocol });
    const v = await newVerification('live');
    await page.goto(v.url);
    await acceptConsent(page);
    await expect(page.getByTestId('step-title')).toHaveText('Take a selfie');
    const offer = page.getByTestId('wallet-offer');
    await expect(offer).toBeVisible();
    await expect(offer).toContainText('18 or older');
    await offer.getByRole('button', { name: 'Use a digital ID' }).click();
    await expect(page.getByTestId('result')).toHaveAttribute('data-status', 'approved');
    await expect(page.getByTestId('step-title')).toHaveText('You are verified');
    // The page asked with every protocol this browser allows; the wallet chose one.
    expect(seen).toEqual([['openid4vp-v1-unsigned', 'org-iso-mdoc']]);
    const got = await v.api.get(v.id);
    expect(got).toMatchObject({
      status: 'approved',
      attempts_remaining: 4,
      result: { age_source: 'wallet', wallet: { protocol, value: true } },
    });
  });
}

test('plain words for a cancelled wallet, no wallet, and a proof refused: nothing changed, the selfie still there', async ({
  page,
}) => {
  const untrusted = await (await testIssuer({ country: 'AQ' })).issue();
  for (const [problem, words, o] of [
    ['cancelled', 'closed without sharing', { fail: 'NotAllowedError' }],
    ['noWallet', 'No digital ID that can prove your age was found', { fail: 'NotFoundError' }],
    // A wallet whose ID comes from an authority nobody trusted here: the server refuses it (untrusted_issuer).
    ['untrusted', 'are not accepted here', { protocol: 'org-iso-mdoc', cred: untrusted }],
  ] as const) {
    const p = await page.context().newPage();
    await stubWallet(p, o);
    const v = await newVerification('live');
    await p.goto(v.url);
    await acceptConsent(p);
    await p.getByRole('button', { name: 'Use a digital ID' }).click();
    await expect(p.getByTestId('wallet-problem')).toHaveAttribute('data-problem', problem);
    await expect(p.getByTestId('wallet-problem')).toContainText(words);
    await expect(p.getByRole('button', { name: 'Try the digital ID again' })).toBeEnabled();
    await expect(p.getByRole('button', { name: 'Take photo' })).toBeVisible();
    if (problem === 'cancelled') expect(await axe(p)).toEqual([]);
    expect([problem, (await v.api.get(v.id)).status]).toEqual([problem, 'created']);
    await p.close();
  }
});

test('the option only where the browser has the API and allows a protocol, and the workspace offers it', async ({
  page,
}) => {
  const p = page;
  const offerShown = async (v: { url: string }) => {
    await p.goto(v.url);
    await acceptConsent(p);
    await expect(p.getByRole('button', { name: 'Take photo' })).toBeEnabled({ timeout: 30_000 });
    return (await p.getByTestId('wallet-offer').count()) + (await p.getByText('Use a digital ID').count());
  };
  // Set per case through sessionStorage (kept across the page's navigations), read before the page's scripts run.
  await p.addInitScript(() => {
    const w = window as unknown as { DigitalCredential?: { userAgentAllowsProtocol?: unknown } };
    if (sessionStorage.getItem('dc') === 'none') delete w.DigitalCredential;
    // The API, but the browser allows only the protocols listed (none: ""), as userAgentAllowsProtocol answers.
    const allowed = sessionStorage.getItem('dc-allows');
    if (w.DigitalCredential && allowed !== null)
      w.DigitalCredential.userAgentAllowsProtocol = (x: string) => allowed.split(' ').includes(x);
  });
  const setDc = (kv: Record<string, string | null>) =>
    p.evaluate((x) => {
      for (const [k, v] of Object.entries(x))
        if (v === null) sessionStorage.removeItem(k);
        else sessionStorage.setItem(k, v);
    }, kv);
  // No Digital Credentials API; then the API, but no protocol allowed.
  const v1 = await newVerification('live');
  await p.goto(v1.url);
  await setDc({ dc: 'none', 'dc-allows': null });
  expect(await offerShown(v1)).toBe(0);
  await setDc({ dc: null, 'dc-allows': '' });
  expect(await offerShown(await newVerification('live'))).toBe(0);

  // A workspace that does not offer it (the default, wallet off), in a browser that has the API.
  await setDc({ dc: null, 'dc-allows': null });
  const off = ops('workspace:create', '--name', 'e2e wallet off');
  const offSecret = off.secret_keys.find((k: { mode: string }) => k.mode === 'live').secret;
  // ops() blocked the event loop: let fetch see the keep-alive sockets the server closed meanwhile.
  await new Promise((r) => setTimeout(r, 50));
  const offV = await apiClient(state().base, off.workspace.api_key, offSecret).json('POST', '/v1/verifications', '{}');
  expect(await offerShown({ url: offV.data.url })).toBe(0);
  // The same browser in a workspace that offers it: shown (the three zeros above are not a page that never shows it).
  expect(await offerShown(await newVerification('live'))).toBeGreaterThan(0);
});

test('the page asks only with the protocols the browser allows', async ({ page }) => {
  const seen = await stubWallet(page, { protocol: 'org-iso-mdoc' });
  await page.addInitScript(() => {
    (
      window as unknown as { DigitalCredential: { userAgentAllowsProtocol: (x: string) => boolean } }
    ).DigitalCredential.userAgentAllowsProtocol = (x) => x === 'org-iso-mdoc';
  });
  const v = await newVerification('live');
  await page.goto(v.url);
  await acceptConsent(page);
  await page.getByRole('button', { name: 'Use a digital ID' }).click();
  await expect(page.getByTestId('result')).toHaveAttribute('data-status', 'approved');
  expect(seen).toEqual([['org-iso-mdoc']]);
});

test('sent back for another try, and stepped up to a document: the wallet is offered before new photos or the document', async ({
  page,
}) => {
  await stubWallet(page, { protocol: 'org-iso-mdoc' });
  const api = apiClient(state().base, ws.apiKey, ws.test);
  /** The offer stands before the button labelled `label` in the page. */
  const offerBefore = (label: string) =>
    page.evaluate((b) => {
      const offer = document.querySelector('[data-testid="wallet-offer"]')!;
      const button = [...document.querySelectorAll('button')].find((x) => x.textContent === b)!;
      return Boolean(offer.compareDocumentPosition(button) & Node.DOCUMENT_POSITION_FOLLOWING);
    }, label);

  // Any resubmission: the offer comes before "Try again" (new photos).
  const retry = await submittedCase(ws, 'test');
  ops('verification:decide', '--id', retry.id, '--status', 'resubmission_requested', '--reason', 'selfie_quality');
  // ops() blocked the event loop: let fetch see the keep-alive sockets the server closed meanwhile.
  await new Promise((r) => setTimeout(r, 50));
  await page.goto((await api.get(retry.id)).url);
  await expect(page.getByTestId('result')).toHaveAttribute('data-status', 'resubmission_requested');
  await expect(page.getByTestId('wallet-offer')).toContainText('Instead of new photos');
  expect(await offerBefore('Try again')).toBe(true);

  // A step-up to a document (rehearsed in test mode, as a reviewer can): the offer before "Continue with a document".
  const { id } = await submittedCase(ws, 'test');
  ops('verification:decide', '--id', id, '--status', 'resubmission_requested', '--reason', 'document_required');
  await new Promise((r) => setTimeout(r, 50));
  await page.goto((await api.get(id)).url);
  await expect(page.getByTestId('step-up')).toBeVisible();
  await expect(page.getByTestId('wallet-offer')).toContainText('instead of photographing a document');
  expect(await offerBefore('Continue with a document')).toBe(true);
  await page.getByTestId('wallet-offer').getByRole('button', { name: 'Use a digital ID' }).click();
  await expect(page.getByTestId('result')).toHaveAttribute('data-status', 'review');
  expect(await api.get(id)).toMatchObject({
    status: 'review',
    attempts_remaining: 3,
    result: { age_source: 'wallet' },
  });
});

test("an integrator's own page (sdk/examples/wallet): consent, the browser API, the proof decided through the SDK", async ({
  page,
}) => {
  const port = await freePort();
  const example = spawn(tsx, ['sdk/examples/wallet/server.ts'], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      PAGE_ORIGIN: `http://127.0.0.1:${port}`,
      OPEN_VERIFY_BASE_URL: state().base,
      OPEN_VERIFY_API_KEY: ws.apiKey,
      OPEN_VERIFY_SECRET_KEY: ws.live,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    await new Promise<void>((resolve, reject) => {
      example.stdout!.on('data', (d) => String(d).includes('listening') && resolve());
      example.on('exit', (code) => reject(new Error(`the example exited (${code})`)));
    });
    const seen = await stubWallet(page, { protocol: 'openid4vp-v1-unsigned' });
    await page.goto(`http://127.0.0.1:${port}/`);
    await expect(page.locator('#consent-text')).toContainText(/\S/);
    await page.getByRole('button', { name: 'I agree' }).click();
    await page.getByRole('button', { name: 'Use a digital ID' }).click();
    await expect(page.locator('#outcome')).toHaveText('Thank you: your age is verified.');
    expect(seen).toEqual([['openid4vp-v1-unsigned', 'org-iso-mdoc']]);
  } finally {
    example.kill();
  }
});

test('screenshots: the offer, a proof approved, a cancelled wallet', async ({ page }) => {
  test.skip(!process.env.SCREENSHOTS, 'run with npm run screenshots');
  const OUT = path.resolve(import.meta.dirname, '../docs/screenshots');
  const shot = (name: string) =>
    page.screenshot({ path: path.join(OUT, `${name}.png`), fullPage: true, animations: 'disabled' });
  await stubWallet(page, { protocol: 'org-iso-mdoc' });
  for (const [device, viewport] of [
    ['desktop', { width: 1280, height: 860 }],
    ['phone', { width: 390, height: 844 }],
  ] as const) {
    await page.setViewportSize(viewport);
    const v = await newVerification('live');
    await page.goto(v.url);
    await acceptConsent(page);
    await expect(page.getByRole('button', { name: 'Take photo' })).toBeEnabled({ timeout: 30_000 });
    await shot(`7-wallet-offer-${device}`);
    if (device === 'desktop') continue;
    await page.getByRole('button', { name: 'Use a digital ID' }).click();
    await expect(page.getByTestId('result')).toHaveAttribute('data-status', 'approved');
    await shot('7-wallet-approved-phone');
  }
  // Sent back for another try (the wallet before new photos), and stepped up to a document (before the document).
  for (const [reason, name] of [
    ['selfie_quality', '7-wallet-resubmission-phone'],
    ['document_required', '7-wallet-step-up-phone'],
  ]) {
    const { id } = await submittedCase(ws, 'test');
    ops('verification:decide', '--id', id, '--status', 'resubmission_requested', '--reason', reason);
    await new Promise((r) => setTimeout(r, 50));
    await page.goto((await apiClient(state().base, ws.apiKey, ws.test).get(id)).url);
    await expect(page.getByTestId('wallet-offer')).toBeVisible();
    await shot(name);
  }
  const cancelled = await page.context().newPage();
  await cancelled.setViewportSize({ width: 390, height: 844 });
  await stubWallet(cancelled, { fail: 'NotAllowedError' });
  const v = await newVerification('live');
  await cancelled.goto(v.url);
  await acceptConsent(cancelled);
  await cancelled.getByRole('button', { name: 'Use a digital ID' }).click();
  await expect(cancelled.getByTestId('wallet-problem')).toBeVisible();
  await cancelled.screenshot({
    path: path.join(OUT, '7-wallet-cancelled-phone.png'),
    fullPage: true,
    animations: 'disabled',
  });
});

/**
 * The README's walk-through, run as written (issue 43): on a fresh data directory the production server starts
 * and prints the demo workspace; the README's bash blocks run in bash (its sign() with openssl, curl, `npm run
 * ops`) with the printed values put in for its placeholders (and free ports for 3000 and 4000); the Node receiver
 * of docs/webhooks.md runs as the README says; the capture link opens in Chromium with a fake camera showing the
 * sample face (docs/samples/selfie.jpg). It passes when the receiver has verified the `review` event, then, after
 * the README's decision, the `approved` one.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_ENV } from '@/playwright.config';
import { chromiumPath, provisionOrExit } from '@/test/setup/provision.mjs';
import { childEnv, ensureBuild, freePort, root, start, stop, type Server } from '@/test/helpers/server';
import { writeY4m } from '@/test/helpers/y4m';

/** The fenced blocks of one language in a section of a Markdown file (from its heading to the next of its level). */
function blocks(file: string, heading: string, lang: string): string[] {
  const md = fs.readFileSync(path.join(root, file), 'utf8');
  const start = md.indexOf(heading);
  if (start < 0) throw new Error(`${file} has no heading ${heading}`);
  const level = /^#+/.exec(heading)![0];
  const next = md.slice(start + heading.length).search(new RegExp(`\\n${level} `));
  const section = next < 0 ? md.slice(start) : md.slice(start, start + heading.length + next);
  return [...section.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]);
}

/** A README block with its placeholders (`NAME=value...` lines, `sk_live_...`) given this run's values. */
function filled(block: string, values: Record<string, string>, ports: { server: number; receiver: number }): string {
  let out = block;
  for (const [name, value] of Object.entries(values)) {
    const line = new RegExp(`^${name}=\\S+`, 'm');
    if (line.test(out)) out = out.replace(line, `${name}='${value}'`);
  }
  return out
    .replaceAll('sk_live_...', values.LIVE)
    .replaceAll('localhost:3000', `localhost:${ports.server}`)
    .replaceAll(':4000/', `:${ports.receiver}/`);
}

describe('the README walk-through, as written', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ov-readme-'));
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ov-readme-work-'));
  let server: Server;
  let receiver: ChildProcess | undefined;
  let browser: Browser | undefined;
  let received = '';
  const ports = { server: 0, receiver: 0 };
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    provisionOrExit(['chromium']);
    ensureBuild();
    ports.server = await freePort();
    ports.receiver = await freePort();
    server = await start(dataDir, ports.server);
    // `npm run ops` and node run as the reader runs them: the server's data directory and port, nothing else set.
    env = childEnv(dataDir, ports.server, { PORT: String(ports.server) });
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    receiver?.kill();
    if (server?.proc.exitCode === null) await stop(server);
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(work, { recursive: true, force: true });
  });

  /** One README block in bash, after the first block (the variables and sign()), from the repository's root. */
  const bash = (values: Record<string, string>, ...body: string[]) =>
    new Promise<string>((resolve, reject) => {
      const script = [
        filled(blocks('README.md', '## Walk-through', 'bash')[0], values, ports),
        ...body.map((b) => filled(b, values, ports)),
      ].join('\n');
      const p = spawn('bash', ['-euo', 'pipefail', '-c', script], { cwd: root, env });
      let out = '';
      let err = '';
      p.stdout.on('data', (d) => (out += d));
      p.stderr.on('data', (d) => (err += d));
      p.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`bash exited ${code}: ${err}\n${out}`))));
    });

  it(
    'from the first start to a verified webhook: receiver, webhook URL, signed create, capture page with a camera, decision',
    { timeout: 600_000 },
    async () => {
      const t0 = Date.now();
      const printed = server.out();
      const values = {
        BASE: `http://localhost:${ports.server}`,
        WS: /workspace id\s+(ws_\w+)/.exec(printed)![1],
        PK: /X-API-Key\s+(pk_\w+)/.exec(printed)![1],
        SK: /test secret\s+(sk_test_\w+)/.exec(printed)![1],
        LIVE: /live secret\s+(sk_live_\w+)/.exec(printed)![1],
      };
      // The development server says where its webhooks may go.
      expect(printed).toContain(
        `development server (BASE_URL http://localhost:${ports.server}): test-mode webhooks may also go to plain http://localhost or http://127.0.0.1 receivers`,
      );

      const readme = blocks('README.md', '## Walk-through', 'bash');
      expect(readme).toHaveLength(5);
      const [, receiverBlock, settingsBlock, createBlock, decideBlock] = readme;
      expect(
        [receiverBlock, settingsBlock, createBlock, decideBlock].map((b, n) =>
          b.includes(['node receiver.mjs', 'workspace:settings', 'POST/v1/verifications', 'verification:decide'][n]),
        ),
      ).toEqual([true, true, true, true]);

      // 0. The receiver: docs/webhooks.md's Node code saved as receiver.mjs, started by the README's line.
      const [receiverJs] = blocks('docs/webhooks.md', '### Node.js (`node:http`, no framework)', 'js');
      fs.writeFileSync(path.join(work, 'receiver.mjs'), receiverJs);
      receiver = spawn('bash', ['-c', filled(receiverBlock, values, ports)], {
        cwd: work,
        env: { ...childEnv(dataDir, ports.server), PORT: String(ports.receiver) },
      });
      receiver.stdout!.on('data', (d) => (received += d));
      receiver.stderr!.on('data', (d) => (received += d));
      for (const until = Date.now() + 30_000; !received.includes('listening on');) {
        if (Date.now() > until) throw new Error(`receiver did not start: ${received}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(received).toContain(`listening on http://127.0.0.1:${ports.receiver}/webhooks/verify`);

      // 0. The webhook URL, and 1. the signed create with curl.
      const out = await bash(values, settingsBlock, createBlock);
      const created = JSON.parse(out.trim().split('\n').at(-1)!);
      expect(created.data).toMatchObject({
        status: 'created',
        external_id: 'user-42',
        url: expect.stringMatching(`^http://localhost:${ports.server}/verify/`),
      });

      // 2. The capture page in Chromium, the fake camera showing the sample face.
      const face = path.join(work, 'face.y4m');
      await writeY4m(face, fs.readFileSync(path.join(root, 'docs/samples/selfie.jpg')));
      browser = await chromium.launch({
        executablePath: chromiumPath(),
        env: CHROMIUM_ENV,
        args: [
          ...CHROMIUM_ARGS,
          '--use-fake-ui-for-media-stream',
          '--use-fake-device-for-media-stream',
          `--use-file-for-fake-video-capture=${face}`,
        ],
      });
      const page = await browser.newPage();
      await page.goto(created.data.url);
      await page.getByRole('button', { name: 'I have read this and I agree' }).click();
      const capture = page.getByRole('button', { name: 'Take photo' });
      await capture.waitFor();
      // Enabled once the face check has seen the face in a few frames.
      for (const until = Date.now() + 60_000; !(await capture.isEnabled());) {
        if (Date.now() > until)
          throw new Error(`Take photo never enabled: ${await page.getByTestId('advice').textContent()}`);
        await new Promise((r) => setTimeout(r, 250));
      }
      // Mirrored (Tailwind's -scale-x-100 is the CSS `scale` property): the live preview, and the still shown after it.
      const mirror = (e: Element) => getComputedStyle(e).scale;
      expect(await page.getByTestId('camera').evaluate(mirror)).toBe('-1 1');
      await capture.click();
      expect(await page.getByTestId('photo-preview').evaluate(mirror)).toBe('-1 1');
      await page.getByRole('button', { name: 'Use this photo' }).click();
      await page.getByRole('button', { name: 'Submit' }).click();
      await page.getByTestId('result').waitFor({ timeout: 60_000 });
      expect(await page.evaluate(async () => (await fetch('/favicon.ico')).status)).toBe(200);

      // 3. The receiver verifies the `review` event; the README's decision sends `approved`.
      const verified = (status: string) =>
        received.split('\n').find((l) => l.startsWith('verified ') && l.includes(`"status":"${status}"`));
      for (const until = Date.now() + 60_000; !verified('review');) {
        if (Date.now() > until) throw new Error(`no verified review event: ${received}`);
        await new Promise((r) => setTimeout(r, 200));
      }
      const firstWebhookMs = Date.now() - t0;
      await bash({ ...values, ID: created.data.id }, decideBlock);
      for (const until = Date.now() + 60_000; !verified('approved');) {
        if (Date.now() > until) throw new Error(`no verified approved event: ${received}`);
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(JSON.parse(verified('approved')!.split(' ').slice(2).join(' '))).toMatchObject({
        verification_id: created.data.id,
        status: 'approved',
        external_id: 'user-42',
      });
      expect(received).not.toContain('refused');
      console.log(
        `README walk-through: first verified webhook ${(firstWebhookMs / 1000).toFixed(1)} s after the server was up; approved ${((Date.now() - t0) / 1000).toFixed(1)} s`,
      );
    },
  );
});

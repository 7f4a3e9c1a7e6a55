/**
 * The walk-through of the README and docs/api.md "Walk-through with curl", run by both SDKs' examples
 * (sdk/examples/) against the production build started as
 * `npm start` does (test/helpers/server.ts): real HTTP, real signatures, the embedded database. Beside them, what
 * only the real server shows: GET /v1/openapi.json and /docs/api without authentication, and the list
 * endpoint's query signed exactly as it travels on the wire (the service's own server passes the raw request line).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signJsonRequest } from '@/lib/domain/auth/sign';
import { demoKeys, ensureBuild, freePort, root, start, stop, tsx, type Server } from '@/test/helpers/server';

const run = promisify(execFile);

/** A GET with the request-target exactly as given (no URL parser in between). */
function rawGet(base: string, target: string, headers: Record<string, string>) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const u = new URL(base);
    const req = http.request(
      { host: u.hostname, port: u.port, method: 'GET', path: target, headers, agent: false },
      (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

type Step = { step: string; [k: string]: unknown };
const steps = (stdout: string): Record<string, Step> =>
  Object.fromEntries(
    stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Step)
      .map((s) => [s.step, s]),
  );

describe('the SDK examples against the production server', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ov-sdk-'));
  let server: Server;
  let apiKey: string;
  let secret: string;
  const env = () => ({
    ...process.env,
    OPEN_VERIFY_BASE_URL: server.base,
    OPEN_VERIFY_API_KEY: apiKey,
    OPEN_VERIFY_SECRET_KEY: secret,
  }); // no SELFIE: the examples' default, the sample face (docs/samples)

  beforeAll(async () => {
    ensureBuild();
    server = await start(dataDir, await freePort());
    ({ apiKey, testSecret: secret } = demoKeys(server.out()));
  }, 240_000);

  afterAll(async () => {
    if (server?.proc.exitCode === null) await stop(server);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  let tsId: string;

  it(
    'TypeScript: sdk/examples/walkthrough.ts runs the walk-through end to end (every request with a signed X-Request-Timestamp)',
    { timeout: 180_000 },
    async () => {
      const { stdout } = await run(tsx, [path.join(root, 'sdk/examples/walkthrough.ts')], {
        cwd: root,
        env: { ...env(), EXTERNAL_ID: 'ts-user', OPEN_VERIFY_REQUEST_TIMESTAMP: '1' },
      });
      const s = steps(stdout);
      tsId = s.created.id as string;
      expect(s.created).toMatchObject({ status: 'created', mode: 'test' });
      expect(s.consented.text_sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(s.uploaded).toMatchObject({ type: 'selfie', status: 'uploaded' });
      expect(s.submitted).toMatchObject({ status: 'review', attempts_remaining: 4 });
      expect(s['waiting for a person']).toMatchObject({
        status: 'review',
        external_metadata: { plan: 'pro' },
        duplicate_check: { checked: true, duplicate_count: 0 },
      });
      expect(s['waiting for a person'].next).toBe(
        `decide it at ${server.base}/admin, or: npm run ops -- verification:decide --id ${tsId} --status approved`,
      );
      expect(s['waiting for a person'].webhooks).toBe(
        "signed with the workspace's active key (on the demo workspace: the live secret), whatever key signed these requests",
      );
      expect(s.decided).toBeUndefined();
      expect(s.listed).toMatchObject({ count: 1, includes_this: true });
    },
  );

  it(
    'Python: sdk/examples/walkthrough.py does the same, and its face is reported as a duplicate of the first (test mode)',
    { timeout: 180_000 },
    async () => {
      const { stdout } = await run('python3', [path.join(root, 'sdk/examples/walkthrough.py')], {
        cwd: root,
        env: { ...env(), EXTERNAL_ID: 'py-user' },
      });
      const s = steps(stdout);
      expect(s.created).toMatchObject({ status: 'created', mode: 'test' });
      expect(s.submitted).toMatchObject({ status: 'review', attempts_remaining: 4 });
      expect(s['waiting for a person']).toMatchObject({
        status: 'review',
        external_metadata: { plan: 'pro' },
        duplicate_check: {
          checked: true,
          duplicate_count: 1,
          duplicates: [{ verification_id: tsId, external_id: 'ts-user' }],
        },
      });
      expect(s.listed).toMatchObject({ count: 1, includes_this: true });
    },
  );

  it('GET /v1/openapi.json and /docs/api need no authentication', async () => {
    const doc = await fetch(`${server.base}/v1/openapi.json`);
    expect(doc.status).toBe(200);
    const json = await doc.json();
    expect(json.openapi).toBe('3.1.0');
    expect(json.servers[0].url).toMatch(/^http:\/\/localhost:\d+$/);
    const page = await fetch(`${server.base}/docs/api`);
    expect(page.status).toBe(200);
    const html = await page.text();
    for (const id of ['createVerification', 'listVerifications', 'uploadMedia', 'X-HMAC-Signature'])
      expect(html).toContain(id);
    expect(html).not.toMatch(/<script[^>]+src="https?:\/\//); // nothing from a CDN
  });

  it('GET /v1/verifications: the query is signed as sent on the wire (percent-encodings, raw characters, order)', async () => {
    const targets: [string, string][] = [
      ['/v1/verifications?external_id=ts%2Duser', '/v1/verifications?external_id=ts-user'],
      [
        '/v1/verifications?external_id=ts-user&status=review%2Ccreated',
        '/v1/verifications?external_id=ts-user&status=review,created',
      ],
      ['/v1/verifications?status=review&external_id=ts-user', '/v1/verifications?external_id=ts-user&status=review'],
      ['/v1/verifications?external_id=%74s-user', '/v1/verifications?external_id=ts-user'],
    ];
    for (const [sent, other] of targets) {
      const good = await rawGet(server.base, sent, {
        'x-api-key': apiKey,
        'x-hmac-signature': signJsonRequest(secret, 'GET', sent),
      });
      expect([sent, good.status]).toEqual([sent, 200]);
      expect(JSON.parse(good.body).data.items.map((v: { id: string }) => v.id)).toEqual([tsId]);
      const bad = await rawGet(server.base, sent, {
        'x-api-key': apiKey,
        'x-hmac-signature': signJsonRequest(secret, 'GET', other),
      });
      expect([sent, bad.status, JSON.parse(bad.body).error.code]).toEqual([sent, 401, 'INVALID_SIGNATURE']);
    }
  });
});

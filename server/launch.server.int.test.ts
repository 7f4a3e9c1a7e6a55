/**
 * The one-command start, for real: `npm start` (production build) on a fresh data directory boots the
 * embedded Postgres, seeds the demo workspace once, serves the API over HTTP; the CLI works alongside;
 * SIGINT stops everything cleanly; a second start reuses the data.
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signJsonRequest } from '@/lib/domain/auth/sign';
import { childEnv, demoKeys, ensureBuild, freePort, root, start, stop, tsx, type Server } from '@/test/helpers/server';

/**
 * A raw HTTP request, so a GET can carry a body and nothing is normalised. A server may answer an
 * oversized upload early and reset the connection while we still write; as curl does, keep the answer.
 */
function raw(base: string, method: string, p: string, headers: Record<string, string>, body?: string) {
  return new Promise<{ status: number; type: string; body: string }>((resolve, reject) => {
    let answer: { status: number; type: string; body: string } | undefined;
    const req = http.request(base + p, { method, headers, agent: false }, (res) => {
      answer = { status: res.statusCode!, type: String(res.headers['content-type']), body: '' };
      res.on('data', (d) => (answer!.body += d));
      res.on('end', () => resolve(answer!));
      res.on('error', () => resolve(answer!));
    });
    req.on('error', (e) => (answer ? setTimeout(() => resolve(answer!), 50) : reject(e)));
    if (body !== undefined) req.write(body);
    req.end();
  });
}

describe('launcher: npm start on the embedded database', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ov-launch-'));
  let port: number;
  let server: Server;
  let apiKey: string;
  let secret: string;
  let vid: string;

  beforeAll(async () => {
    ensureBuild();
    port = await freePort();
    server = await start(dataDir, port);
    ({ apiKey, testSecret: secret } = demoKeys(server.out()));
  }, 240_000);

  afterAll(async () => {
    if (server?.proc.exitCode === null) await stop(server);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('first start prints the demo workspace once, with working secrets', async () => {
    expect(server.out()).toContain('First start');
    const body = JSON.stringify({ external_id: 'launch-1' });
    const r = await fetch(`${server.base}/v1/verifications`, {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        'x-api-key': apiKey,
        'x-hmac-signature': signJsonRequest(secret, 'POST', '/v1/verifications', body),
      },
    });
    expect(r.status).toBe(201);
    const d = (await r.json()).data;
    vid = d.id;
    expect(d.url).toBe(`http://localhost:${port}/verify/${d.url.split('/').pop()}`);
  });

  it('the placeholder curl line printed at first start works', async () => {
    const r = await fetch(`${server.base}/v1/verifications`, {
      method: 'POST',
      body: '{"external_id":"demo-1"}',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey, 'x-hmac-signature': 'placeholder' },
    });
    expect([r.status, (await r.json()).data.mode]).toEqual([201, 'test']);
  });

  it('over HTTP every /v1 answer is the JSON envelope, never HTML', async () => {
    const h = { 'x-api-key': apiKey };
    const cases: [string, string, Record<string, string>, string | undefined, number, string][] = [
      ['GET', '/v1/nothing/here', h, undefined, 404, 'NOT_FOUND'],
      ['DELETE', '/v1/verifications', h, undefined, 405, 'METHOD_NOT_ALLOWED'],
      // docs/api.md: a GET carries no body; one sent anyway is refused, signed or not.
      [
        'GET',
        '/v1/consent',
        {
          ...h,
          'x-hmac-signature': signJsonRequest(secret, 'GET', '/v1/consent', '{}'),
          'content-type': 'application/json',
          'content-length': '2',
        },
        '{}',
        400,
        'BAD_REQUEST',
      ],
      [
        'POST',
        '/v1/verifications',
        {
          ...h,
          'content-type': 'application/json',
          'x-hmac-signature': signJsonRequest(secret, 'POST', '/v1/verifications', '{bad'),
        },
        '{bad',
        422,
        'VALIDATION_ERROR',
      ],
      [
        'POST',
        '/v1/verifications',
        { ...h, 'content-type': 'application/json', 'x-hmac-signature': 'a'.repeat(64) },
        'x'.repeat(1024 * 1024),
        413,
        'PAYLOAD_TOO_LARGE',
      ],
      [
        'POST',
        '/v1/verifications',
        {
          ...h,
          'content-type': 'text/plain',
          'x-hmac-signature': signJsonRequest(secret, 'POST', '/v1/verifications', 'hi'),
        },
        'hi',
        415,
        'UNSUPPORTED_MEDIA_TYPE',
      ],
      [
        'GET',
        '/v1/verifications/not-a-uuid',
        { ...h, 'x-hmac-signature': signJsonRequest(secret, 'GET', '/v1/verifications/not-a-uuid') },
        undefined,
        404,
        'NOT_FOUND',
      ],
    ];
    for (const [method, p, headers, body, status, code] of cases) {
      const r = await raw(server.base, method, p, headers, body).catch((e) => {
        throw new Error(`${method} ${p}: ${e.message}`);
      });
      expect([method, p, r.status, r.type]).toEqual([method, p, status, 'application/json; charset=utf-8']);
      expect(JSON.parse(r.body).error.code).toBe(code);
    }
  });

  it('the operator CLI works while the server runs, against the same database', () => {
    const ws = /workspace id\s+(ws_\w+)/.exec(server.out())![1];
    const out = execFileSync(tsx, ['server/ops.ts', 'key:list', '--workspace', ws, '--json'], {
      cwd: root,
      env: childEnv(dataDir, port),
    }).toString();
    expect(JSON.parse(out).secret_keys).toHaveLength(2);
  });

  it('a key deleted and a setting changed outside the server take effect on /v1 at once (nothing cached in the process)', async () => {
    const ws = /workspace id\s+(ws_\w+)/.exec(server.out())![1];
    // Not execFileSync: a test blocked for the CLI's seconds would not see the server close its idle keep-alive
    // socket, and the next fetch would be sent on it ("other side closed").
    const ops = async (...a: string[]) =>
      JSON.parse(
        (await promisify(execFile)(tsx, ['server/ops.ts', ...a, '--json'], { cwd: root, env: childEnv(dataDir, port) }))
          .stdout,
      );
    const key = (await ops('key:create', '--workspace', ws, '--mode', 'test')).secret_key as {
      id: string;
      secret: string;
    };
    const get = (s: string) =>
      fetch(server.base + '/v1/consent', {
        headers: { 'x-api-key': apiKey, 'x-hmac-signature': signJsonRequest(s, 'GET', '/v1/consent') },
      });
    expect((await get(key.secret)).status).toBe(200);
    await ops('key:delete', '--key', key.id);
    const refused = await get(key.secret);
    expect([refused.status, (await refused.json()).error.code]).toEqual([401, 'INVALID_SIGNATURE']);
    await ops('workspace:settings', '--workspace', ws, '--require-request-timestamp', 'true');
    const untimed = await get(secret);
    expect([untimed.status, (await untimed.json()).error.code]).toEqual([401, 'MISSING_TIMESTAMP']);
    await ops('workspace:settings', '--workspace', ws, '--require-request-timestamp', 'false');
    expect((await get(secret)).status).toBe(200);
  }, 60_000);

  it('SIGINT stops everything cleanly; a second start reuses the data and seeds nothing', async () => {
    expect(await stop(server)).toBe(0);
    expect(fs.existsSync(path.join(dataDir, 'server.json'))).toBe(false);
    await expect(fetch(`${server.base}/v1/none`)).rejects.toThrow();

    server = await start(dataDir, port);
    expect(server.out()).not.toContain('First start');
    const p = `/v1/verifications/${vid}`;
    const r = await fetch(server.base + p, {
      headers: { 'x-api-key': apiKey, 'x-hmac-signature': signJsonRequest(secret, 'GET', p) },
    });
    expect(r.status).toBe(200);
    expect((await r.json()).data.external_id).toBe('launch-1');
  }, 120_000);
});

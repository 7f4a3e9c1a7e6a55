/**
 * What a client can send that no path serves (issue 40, items 4 and 5; SECURITY.md "What the suites prove"),
 * against the production build: each a 4xx in the error envelope, never a 500, and no uncaught exception in the
 * server's log; /readyz, which tells anyone the status alone and an operator (METRICS_TOKEN) each check; and the
 * absolute URLs the server writes, each on BASE_URL's origin (here a loopback address, which Next.js's request
 * object renames `localhost`) whatever the Host header says (issue 40, item 6).
 */
import net from 'node:net';
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEnvelope, raw, startService, type RawResponse, type Service } from './harness';

/** One request written as given on a socket (what no HTTP client sends), its answer parsed. */
function rawSocket(port: number, request: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1');
    let data = Buffer.alloc(0);
    s.on('data', (d) => (data = Buffer.concat([data, d])));
    s.on('error', (e) => {
      if (data.length === 0) reject(e);
    });
    s.setTimeout(30_000, () => s.destroy(new Error('socket timeout')));
    s.on('close', () => {
      const text = data.toString('utf8');
      const [head, ...rest] = text.split('\r\n\r\n');
      const headers: Record<string, string> = {};
      for (const line of head.split('\r\n').slice(1)) {
        const i = line.indexOf(':');
        if (i > 0) headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
      }
      let body = rest.join('\r\n\r\n');
      if (/chunked/i.test(headers['transfer-encoding'] ?? ''))
        body = body.replace(/^[0-9a-f]+\r\n/i, '').replace(/\r\n0\r\n\r\n$/, '');
      let json;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), headers, text: body, json });
    });
    // Connection: close in every request here: the server closes once it has answered.
    s.write(request);
  });
}

describe('requests no path serves, and /readyz, against the production build', () => {
  let svc: Service;
  const token = crypto.randomBytes(16).toString('hex');
  beforeAll(async () => {
    svc = await startService((port) => ({ METRICS_TOKEN: token, BASE_URL: `http://127.0.0.1:${port}` }));
  }, 180_000);
  afterAll(() => svc?.cleanup());

  const uncaught = () => (svc.server.out().match(/uncaughtException|Uncaught|unhandledRejection/g) ?? []).length;

  it('an absolute-form target with a query is answered as the origin form `/?query` is (it was a 500 "Invalid URL")', async () => {
    for (const [method, absolute, origin, extra] of [
      ['GET', 'http://evil?x', '/?x', ''],
      ['POST', 'http://evil?/admin/sign-in', '/?/admin/sign-in', 'Content-Type: text/plain\r\nContent-Length: 3\r\n'],
    ] as const) {
      const body = method === 'POST' ? 'a=b' : '';
      const asAbsolute = await rawSocket(
        svc.port,
        `${method} ${absolute} HTTP/1.1\r\nHost: evil\r\n${extra}Connection: close\r\n\r\n${body}`,
      );
      const asOrigin = await rawSocket(
        svc.port,
        `${method} ${origin} HTTP/1.1\r\nHost: evil\r\n${extra}Connection: close\r\n\r\n${body}`,
      );
      expect([method, asAbsolute.status]).toEqual([method, asOrigin.status]);
      expect(asAbsolute.status).toBeLessThan(500);
    }
  });

  it('TRACE, CONNECT-like and WebDAV methods: 405 with Allow in the envelope (on /v1 the route’s own methods)', async () => {
    const trace = await rawSocket(svc.port, 'TRACE / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expectEnvelope(trace, [405]);
    expect(trace.headers.allow).toBe('GET, HEAD, POST, DELETE, OPTIONS');
    for (const method of ['SEARCH', 'PROPFIND', 'TRACE']) {
      const r = await raw(svc.server.base, method, '/v1/verifications');
      expectEnvelope(r, [405], method);
      expect([method, r.json.error.code, r.headers.allow]).toEqual([method, 'METHOD_NOT_ALLOWED', 'GET, POST']);
    }
  });

  it('a Next-Action header on a page outside the admin area: 400 in the envelope, and no uncaught exception', async () => {
    const before = uncaught();
    const body = '------x\r\nContent-Disposition: form-data; name="1_a"\r\n\r\nb\r\n------x--\r\n';
    for (let i = 0; i < 20; i++) {
      const r = await raw(
        svc.server.base,
        'POST',
        i % 2 ? '/' : '/verify/nope',
        {
          'next-action': crypto.randomBytes(20).toString('hex'),
          'content-type': 'multipart/form-data; boundary=----x',
        },
        body,
      );
      expectEnvelope(r, [400]);
    }
    await new Promise((r) => setTimeout(r, 500));
    expect(uncaught()).toBe(before);
  });

  it('/api/inngest without Inngest configured: 404 in the envelope on GET, PUT and POST', async () => {
    for (const method of ['GET', 'PUT', 'POST']) {
      const r = await raw(
        svc.server.base,
        method,
        '/api/inngest',
        { 'content-type': 'application/json' },
        method === 'GET' ? undefined : '{}',
      );
      expectEnvelope(r, [404], method);
    }
  });

  it('/readyz: the status alone for anyone; each check for a request with the METRICS_TOKEN', async () => {
    const anyone = await raw(svc.server.base, 'GET', '/readyz');
    expect([anyone.status, anyone.json]).toEqual([200, { data: { status: 'ready' } }]);
    const wrong = await raw(svc.server.base, 'GET', '/readyz', { authorization: 'Bearer not-the-token' });
    expect(wrong.json).toEqual({ data: { status: 'ready' } });
    const operator = await raw(svc.server.base, 'GET', '/readyz', { authorization: `Bearer ${token}` });
    expect(operator.status).toBe(200);
    expect(Object.keys(operator.json.data.checks).sort()).toEqual([
      'analysis_workers',
      'database',
      'draining',
      'migrations',
    ]);
    expect(typeof operator.json.data.checks.database.ms).toBe('number');
  });

  it('every absolute URL Auth.js writes is on BASE_URL’s origin (127.0.0.1 here), whatever the Host header names', async () => {
    const origin = `http://127.0.0.1:${svc.port}`;
    const urlsIn = (text: string) =>
      [...decodeURIComponent(text).matchAll(/https?:\/\/[^/"'\s;&?]+/g)].map((m) => m[0]);
    for (const host of [`127.0.0.1:${svc.port}`, `localhost:${svc.port}`, 'evil.example']) {
      const headers = { host, 'x-forwarded-host': 'forwarded.example', 'x-forwarded-proto': 'https' };
      const providers = await raw(svc.server.base, 'GET', '/api/auth/providers', headers);
      expect([host, providers.status]).toEqual([host, 200]);
      expect([host, providers.json.ticket.signinUrl, providers.json.ticket.callbackUrl]).toEqual([
        host,
        `${origin}/api/auth/signin/ticket`,
        `${origin}/api/auth/callback/ticket`,
      ]);
      const signIn = await raw(svc.server.base, 'GET', '/api/auth/signin', headers);
      expect([host, signIn.status]).toEqual([host, 302]);
      const written = [signIn.headers.location, String(signIn.headers['set-cookie'] ?? '')].join(' ');
      expect([host, urlsIn(written)]).toEqual([host, [origin, origin]]);
      const refused = await raw(svc.server.base, 'GET', '/api/auth/signin/ticket', headers);
      expect([host, refused.status, urlsIn(refused.headers.location ?? '')]).toEqual([host, 302, [origin]]);
    }
  });
});

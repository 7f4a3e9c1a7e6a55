/**
 * The custom server's fast path serves `apiRoute` routes with a light request over node's and writes their answer
 * without a web Response (lib/api/node-dispatch.ts, docs/architecture.md "How a /v1 request is served"). It must
 * answer exactly as the web path does: the same request, sent over real HTTP to the dispatcher and to the route
 * handlers called with a web Request (test/helpers/route-server.ts), gets the same status, headers and body, for
 * the answers that read the body in each way (whole, refused by its declared length, refused as it streams,
 * unread) and those that read headers (a repeated header, a query).
 */
import http from 'node:http';
import type net from 'node:net';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { v1Dispatcher } from './node-dispatch';
import { httpObserver } from '@/lib/core/observability/http';
import { startRouteServer } from '@/test/helpers/route-server';
import { root } from '@/test/helpers/server';
import { counterValue } from '@/test/helpers/metrics';
import { ensureConsent, makeWorkspace, type TestWorkspace } from '@/test/helpers/factories';
import { signJsonRequest } from '@/lib/domain/auth/sign';

type Served = { base: string; port: number; close: () => Promise<void> };

/** The dispatcher on a real node:http server, behind the production server's observer (its metrics). */
async function startFastServer(compress: boolean): Promise<Served> {
  const observe = httpObserver(root);
  const server = http.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  const dispatch = await v1Dispatcher(root, `http://127.0.0.1:${port}`, { compress });
  server.on(
    'request',
    (req: http.IncomingMessage, res: http.ServerResponse) =>
      void observe(req, res, async () => {
        if (!(await dispatch(req, res))) res.writeHead(599).end();
      }),
  );
  return {
    base: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

type Answer = { status: number; headers: http.IncomingHttpHeaders; body: Buffer; reused: boolean };

/** One request over node's client (a body given as chunks is sent chunked, without Content-Length). */
function send(
  base: string,
  o: {
    method: string;
    path: string;
    headers?: Record<string, string | string[]>;
    body?: string | string[];
    agent?: http.Agent;
  },
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(base + o.path, { method: o.method, headers: o.headers, agent: o.agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode!,
          headers: res.headers,
          body: Buffer.concat(chunks),
          reused: req.reusedSocket,
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    if (Array.isArray(o.body)) for (const c of o.body) req.write(c);
    else if (o.body !== undefined) req.write(o.body);
    req.end();
  });
}

/** What must be the same on both paths: ids, dates and the remaining rate limit set aside. */
function comparable(a: Answer) {
  const volatile = new Set([
    'date',
    'x-request-id',
    'x-ratelimit-remaining',
    'x-ratelimit-reset',
    'keep-alive',
    'connection',
  ]);
  const headers = Object.fromEntries(Object.entries(a.headers).filter(([k]) => !volatile.has(k)));
  const text = a.body
    .toString('utf8')
    .replace(/"(req|ver|aud)_[A-Za-z0-9]+"/g, '"$1_…"')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, 'UUID')
    .replace(/\/verify\/[A-Za-z0-9_-]+/g, '/verify/TOKEN')
    .replace(/"\d{4}-\d\d-\d\dT[^"]+"/g, '"DATE"');
  return {
    status: a.status,
    headers,
    text,
    requestId: typeof a.headers['x-request-id'] === 'string',
    limited: 'x-ratelimit-remaining' in a.headers,
  };
}

describe('the fast path answers as the web path does', () => {
  let w: TestWorkspace;
  let fast: Served;
  let gzip: Served;
  let web: Awaited<ReturnType<typeof startRouteServer>>;
  let id: string;
  const signed = (method: string, path: string, body = '', extra: Record<string, string> = {}) => ({
    'x-api-key': w.apiKey,
    'x-hmac-signature': signJsonRequest(w.testSecret, method, path, body),
    'content-type': 'application/json',
    ...extra,
  });

  beforeAll(async () => {
    await ensureConsent();
    w = await makeWorkspace({ rate_limit_per_minute: 10_000 });
    [fast, gzip, web] = await Promise.all([startFastServer(false), startFastServer(true), startRouteServer()]);
    const body = JSON.stringify({ external_id: 'fast-path' });
    const created = await send(fast.base, {
      method: 'POST',
      path: '/v1/verifications',
      headers: signed('POST', '/v1/verifications', body),
      body,
    });
    expect(created.status).toBe(201);
    id = JSON.parse(created.body.toString()).data.id;
  });
  afterAll(async () => {
    await Promise.all([fast?.close(), gzip?.close(), web?.close()]);
  });

  /** The same request to both; their answers compared; the fast path's returned. */
  const both = async (o: Parameters<typeof send>[1] | (() => Parameters<typeof send>[1])) => {
    const make = typeof o === 'function' ? o : () => o;
    const [a, b] = [await send(fast.base, make()), await send(web.base, make())];
    expect(comparable(a)).toEqual(comparable(b));
    return a;
  };

  it('a signed create and read: the same status, headers and body', async () => {
    const body = JSON.stringify({ external_id: 'same', external_metadata: { plan: 'pro' } });
    const created = await both({
      method: 'POST',
      path: '/v1/verifications',
      headers: signed('POST', '/v1/verifications', body),
      body,
    });
    expect(created.status).toBe(201);
    expect(created.headers['content-type']).toBe('application/json; charset=utf-8');
    const path = `/v1/verifications/${id}`;
    expect((await both({ method: 'GET', path, headers: signed('GET', path) })).status).toBe(200);
  });

  it('a body sent in chunks is read whole; an empty body is the empty object', async () => {
    const body = ['{"external_id":', '"in-chunks"', '}'];
    const a = await both({
      method: 'POST',
      path: '/v1/verifications',
      headers: signed('POST', '/v1/verifications', body.join('')),
      body,
    });
    expect(a.status).toBe(201);
    expect(JSON.parse(a.body.toString()).data.external_id).toBe('in-chunks');
    expect(
      (await both({ method: 'POST', path: '/v1/verifications', headers: signed('POST', '/v1/verifications') })).status,
    ).toBe(201);
  });

  it('errors read from the body: malformed JSON, another content type, a wrong signature', async () => {
    for (const [body, type, status, sign] of [
      ['{"external_id":', 'application/json', 422, true],
      ['{}', 'text/plain', 415, true],
      ['{"external_id":"a"}', 'application/json', 401, false],
    ] as const) {
      const headers = signed('POST', '/v1/verifications', sign ? body : '{}', { 'content-type': type });
      expect((await both({ method: 'POST', path: '/v1/verifications', headers, body })).status).toBe(status);
    }
  });

  it('a body over 64 KiB: 413 at once when declared, 413 as it streams when not, and the connection kept', async () => {
    const big = JSON.stringify({ external_id: 'x'.repeat(100 * 1024) });
    const declared = await both({
      method: 'POST',
      path: '/v1/verifications',
      headers: signed('POST', '/v1/verifications', big),
      body: big,
    });
    expect(declared.status).toBe(413);
    const chunks = Array.from({ length: 10 }, () => 'x'.repeat(16 * 1024));
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const streamed = await both(() => ({
      method: 'POST',
      path: '/v1/verifications',
      headers: signed('POST', '/v1/verifications', chunks.join('')),
      body: chunks,
      agent,
    }));
    expect(streamed.status).toBe(413);
    expect(JSON.parse(streamed.body.toString()).error.code).toBe('PAYLOAD_TOO_LARGE');
    // The rest of the refused body was read and dropped: the next request goes over the same connection.
    const path = `/v1/verifications/${id}`;
    const next = await send(fast.base, { method: 'GET', path, headers: signed('GET', path), agent });
    expect([next.status, next.reused]).toEqual([200, true]);
    agent.destroy();
  });

  it('a request refused before its body leaves it unread, and its connection serves the next request', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const body = JSON.stringify({ external_id: 'y'.repeat(200 * 1024) });
    const refused = await both(() => ({
      method: 'POST',
      path: '/v1/verifications',
      headers: { 'x-api-key': 'pk_unknown', 'x-hmac-signature': 'ab', 'content-type': 'application/json' },
      body,
      agent,
    }));
    // 401, not 413: the body was never read.
    expect(refused.status).toBe(401);
    const path = `/v1/verifications/${id}`;
    const next = await send(fast.base, { method: 'GET', path, headers: signed('GET', path), agent });
    expect([next.status, next.reused]).toEqual([200, true]);
    agent.destroy();
  });

  it('headers as a web Request reads them: a repeated header joined, names in any case; the query as sent', async () => {
    const path = '/v1/verifications';
    const twice = await both({
      method: 'POST',
      path,
      headers: { ...signed('POST', path, '{}'), 'x-api-key': [w.apiKey, w.apiKey] },
      body: '{}',
    });
    expect(twice.status).toBe(401);
    const q = '/v1/verifications?external_id=fast-path&limit=5';
    const h = signed('GET', q);
    const upper = Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toUpperCase(), v]));
    expect((await both({ method: 'GET', path: q, headers: upper })).status).toBe(200);
    const dup = '/v1/verifications?limit=5&limit=6';
    expect((await both({ method: 'GET', path: dup, headers: signed('GET', dup) })).status).toBe(422);
  });

  it('compressed as Next.js compresses: gzip for a client that accepts it, with Vary', async () => {
    const path = `/v1/verifications/${id}`;
    const a = await send(gzip.base, {
      method: 'GET',
      path,
      headers: { ...signed('GET', path), 'accept-encoding': 'gzip' },
    });
    expect([a.status, a.headers['content-encoding'], a.headers.vary]).toEqual([200, 'gzip', 'Accept-Encoding']);
    expect(JSON.parse(zlib.gunzipSync(a.body).toString()).data.id).toBe(id);
    const plain = await send(gzip.base, { method: 'GET', path, headers: signed('GET', path) });
    expect([plain.status, plain.headers['content-encoding']]).toEqual([200, undefined]);
  });

  it('a client gone before its answer is observed as 499', async () => {
    const labels = { method: 'POST', route: '/v1/verifications', status: '499' };
    const before = await counterValue('http_requests_total', labels);
    const body = '{"external_id":"gone"}';
    const req = http.request(fast.base + '/v1/verifications', {
      method: 'POST',
      headers: { ...signed('POST', '/v1/verifications', body), 'content-length': String(body.length) },
    });
    req.on('error', () => {});
    req.write(body.slice(0, 5));
    await new Promise((r) => setTimeout(r, 100));
    req.destroy();
    for (let i = 0; i < 100 && (await counterValue('http_requests_total', labels)) === before; i++)
      await new Promise((r) => setTimeout(r, 20));
    expect(await counterValue('http_requests_total', labels)).toBe(before + 1);
  });
});

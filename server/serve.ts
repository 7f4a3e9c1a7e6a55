/**
 * The service's HTTP server: Next.js behind a plain node:http server of our own (a Next "custom server"),
 * started by the launcher (server/launch.ts) in place of `next start` / `next dev`. It exists for what
 * Next's own server does not do:
 *  - the request-target exactly as sent, for the signature (docs/api.md: "the query string as sent"): Next
 *    hands route handlers a URL rebuilt from a parsed query, so the wire form goes to them in a header that
 *    this server alone sets (lib/domain/auth/canonical.ts);
 *  - a request Next cannot route (a path that is not valid percent-encoded UTF-8, `/v1/%ff`, a request-target
 *    that is not a path: `OPTIONS *`) or Node cannot parse (a bad request line or header) gets the error
 *    envelope, where Next and Node answered a bare 500/400;
 *  - the client's address, once for the whole service (the API's failed-signature count and rate limits, the
 *    admin sign-in throttle): from the connection, and from forwarded headers only when the connection is a
 *    reverse proxy named in TRUSTED_PROXIES (lib/domain/auth/client-address.ts), in a header this server alone sets;
 *    from anyone else X-Forwarded-* are removed before Next.js and Auth.js read them;
 *  - Strict-Transport-Security on every answer when BASE_URL is https (browsers then never try plain HTTP);
 *  - every request measured (http_requests_total, http_request_duration_seconds by route template) and, with
 *    OTEL_EXPORTER_OTLP_ENDPOINT set, traced from here (docs/operating.md);
 *  - /v1 served straight from the route registry (lib/api/node-dispatch.ts), without Next.js's request pipeline
 *    (docs/architecture.md "How a /v1 request is served"); API_FAST_PATH=0 leaves it to Next.js;
 *  - graceful shutdown on SIGTERM/SIGINT: stop accepting, let in-flight requests finish, then let the
 *    background runner finish its jobs, the analysis workers their images, and close the database pool
 *    (lib/core/lifecycle.ts), within SHUTDOWN_GRACE_MS.
 */
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import next from 'next';
import { env } from '../lib/core/env';
import { redactConsole } from '../lib/core/log';
import { newId } from '../lib/core/ids';
import { markRequestTargetTrusted, REQUEST_TARGET_HEADER } from '../lib/domain/auth/canonical';
import {
  CLIENT_ADDRESS_HEADER,
  FORWARDED_HEADERS,
  parseTrustedProxies,
  resolveClientAddress,
  trustsProxy,
} from '../lib/domain/auth/client-address';
import { runShutdownHooks, startDraining } from '../lib/core/lifecycle';
import { HTTP_STATUS } from '../lib/api/http-status';
import type { ErrorCode } from '../lib/core/errors';
import { httpObserver } from '../lib/core/observability/http';
import { onShutdown } from '../lib/core/lifecycle';
import { v1Dispatcher } from '../lib/api/node-dispatch';
import { getDbHandle } from '../lib/db/client';
import nextConfig from '../next.config';

const root = path.resolve(import.meta.dirname, '..');
const dev = process.argv[2] === 'dev';

/**
 * Why a request-target is refused before routing, or null: a path that is not valid percent-encoded UTF-8
 * (Next fails on it with a bare 500), or one with dot segments or encoded slashes, raw or percent-encoded
 * (Next resolves `/v1/verifications/%2e%2e/consent` to `/v1/consent`: no path of this API needs them, and a
 * signed path should name one resource in one spelling).
 */
function targetProblem(target: string): string | null {
  // Origin-form (`/path`) or absolute-form (`http://host/path`, what a client talking to a proxy sends); the
  // asterisk-form (`OPTIONS *`) is answered by the caller; anything else names no resource of ours.
  if (!target.startsWith('/') && !/^https?:\/\//i.test(target)) return 'The request-target is not a path.';
  const q = target.indexOf('?');
  const p = q < 0 ? target : target.slice(0, q);
  let segments: string[];
  try {
    segments = p.split('/').map((s) => decodeURIComponent(s));
  } catch {
    return 'The request path is not valid percent-encoded UTF-8.';
  }
  if (segments.some((s) => s === '.' || s === '..' || s.includes('/') || s.includes('\\'))) {
    return 'The request path has a dot segment or an encoded slash.';
  }
  return null;
}

function envelope(code: ErrorCode, message: string) {
  const requestId = newId('req');
  return { requestId, body: JSON.stringify({ error: { code, message, request_id: requestId } }) };
}

/** RFC 6797: a year, this host and its subdomains; sent only where BASE_URL is https (over plain HTTP it means nothing). */
const HSTS = 'max-age=31536000; includeSubDomains';
/** Every method a path of this service may answer, for `OPTIONS *`. */
const ALLOW = 'GET, HEAD, POST, DELETE, OPTIONS';

/** The methods any path of this service answers; anything else (TRACE, CONNECT, SEARCH, PROPFIND, …) is 405. */
const SERVED_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

function sendError(res: http.ServerResponse, code: ErrorCode, message: string, headers: Record<string, string> = {}) {
  const { requestId, body } = envelope(code, message);
  res.writeHead(HTTP_STATUS[code], {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'x-request-id': requestId,
    connection: 'close',
    ...headers,
  });
  res.end(body);
}

/**
 * The path of a request-target: the origin form as it is, the absolute form without its scheme and authority (a
 * query right after the authority, `http://host?x`, is the query of `/`).
 */
function targetPath(target: string): string {
  if (target.startsWith('/')) return target;
  const rest = target.replace(/^https?:\/\/[^/?#]*/i, '');
  return rest.startsWith('/') ? rest : `/${rest}`;
}

/**
 * Tracing, when OTEL_EXPORTER_OTLP_ENDPOINT is set (docs/operating.md "Traces"): started here, before Next.js loads,
 * because this server opens each request's span; without it the SDK is never imported.
 */
async function startTracingIfAsked() {
  if (!env().OTEL_EXPORTER_OTLP_ENDPOINT) return;
  const { startTracing } = await import('../lib/core/observability/tracing-sdk');
  const { version } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string };
  const tracing = await startTracing({ serviceVersion: version });
  onShutdown('telemetry', 'tracing', () => tracing.shutdown());
}

async function main() {
  // Whatever Next.js and the libraries print (a server action's failed query with its parameters) passes the
  // log's redaction (lib/core/log.ts).
  redactConsole();
  // Started by the launcher with its umask; set again in case it is started otherwise (SECURITY.md, "File modes").
  process.umask(0o077);
  const e = env();
  await startTracingIfAsked();
  const observe = httpObserver(root);
  const fastPath = !dev && e.API_FAST_PATH === '1';
  // The database pool made by this server's own copy of lib/db/client.ts, before Next.js starts and its instrumentation
  // takes the pool on globalThis: the route files the fast path loads build their queries with this copy's drizzle,
  // and a pool made by the copy Next.js bundles mixed the two in every query, at a cost per row (docs/performance.md
  // "API throughput").
  if (fastPath) getDbHandle();
  const app = next({ dev, dir: root, port: e.PORT, hostname: 'localhost' });
  await app.prepare();
  const handle = app.getRequestHandler();
  markRequestTargetTrusted();
  const proxies = parseTrustedProxies(e.TRUSTED_PROXIES);
  // /v1 straight to the route registry on this server, Next.js for the rest (lib/api/node-dispatch.ts), unless
  // the operator turned it off (API_FAST_PATH=0, docs/configuration.md). Not in development: there Next.js reloads
  // the route files as they are edited, and the route files this server loaded once would not change.
  const v1 = fastPath
    ? await v1Dispatcher(root, `http://localhost:${e.PORT}`, { compress: nextConfig.compress !== false })
    : null;

  const peerTrusted = new WeakMap<net.Socket, boolean>();
  const peerAddresses = new WeakMap<net.Socket, string | null>();
  /** An untrusted peer is the client: its address as resolveClientAddress gives it, once per connection. */
  const peerAddress = (socket: net.Socket, peer: string | undefined) => {
    let a = peerAddresses.get(socket);
    if (a === undefined) peerAddresses.set(socket, (a = resolveClientAddress(peer, undefined, proxies)));
    return a;
  };
  const inflight = new Set<http.ServerResponse>();
  let draining = false;
  const hsts = new URL(e.BASE_URL).protocol === 'https:';
  // Every request is measured (http_requests_total, http_request_duration_seconds) and, with tracing, is a span.
  const server = http.createServer((req, res) => void observe(req, res, () => serve(req, res)));
  const serve = (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (hsts) res.setHeader('strict-transport-security', HSTS);
    const target = req.url ?? '/';
    if (target === '*' && req.method === 'OPTIONS') {
      res.writeHead(200, { allow: ALLOW, 'content-length': '0', 'cache-control': 'no-store' }).end();
      return;
    }
    const problem = targetProblem(target);
    if (problem) return sendError(res, 'BAD_REQUEST', problem);
    // Server actions live on the admin pages only (app/admin/*-actions.ts): a Next-Action header anywhere else is
    // refused here (Next.js answered one posted to any page with 200 and an uncaught exception).
    if (req.headers['next-action'] !== undefined && !/^\/admin(\/|\?|$)/.test(targetPath(target))) {
      return sendError(res, 'BAD_REQUEST', 'Server actions are served on the admin pages only.');
    }
    if (!SERVED_METHODS.has(req.method ?? '')) {
      // A method no path here serves: 405 in the envelope, with what the path does allow (a /v1 route's own
      // methods; elsewhere every method the service answers).
      const p = targetPath(target).split('?')[0];
      const allow = (v1?.allowed(p) ?? null)?.join(', ') ?? ALLOW;
      return sendError(res, 'METHOD_NOT_ALLOWED', `Method ${req.method} is not allowed. Allowed: ${allow}.`, { allow });
    }
    // Whatever a client put in these headers is replaced: only this server says what was on the wire, and
    // who sent it (the socket's peer, or what the operator's declared proxies say).
    req.headers[REQUEST_TARGET_HEADER] = target;
    // Forwarded headers only from a trusted proxy; the client's address from this server alone.
    const peer = req.socket.remoteAddress;
    // The peer of a connection does not change: whether it is a trusted proxy is worked out once per connection.
    let trusted = peerTrusted.get(req.socket);
    if (trusted === undefined) peerTrusted.set(req.socket, (trusted = !!peer && trustsProxy(proxies, peer)));
    if (!trusted) for (const h of FORWARDED_HEADERS) delete req.headers[h];
    const client = trusted
      ? resolveClientAddress(peer, req.headers['x-forwarded-for'], proxies)
      : peerAddress(req.socket, peer);
    if (client) req.headers[CLIENT_ADDRESS_HEADER] = client;
    else delete req.headers[CLIENT_ADDRESS_HEADER];
    // The absolute form names a path on this server like the origin form (the authority is not ours to follow:
    // Next answered it with a redirect to whatever host it named).
    if (!target.startsWith('/')) req.url = targetPath(target);
    inflight.add(res);
    res.once('close', () => inflight.delete(res));
    if (draining) res.setHeader('connection', 'close');
    const served = v1 ? v1(req, res).then((done) => (done ? undefined : handle(req, res))) : handle(req, res);
    return served.catch(() => {
      if (!res.headersSent) sendError(res, 'INTERNAL_ERROR', 'An internal error occurred. Retry later.');
      else res.destroy();
    });
  };
  // Slow clients: headers within 20 s, a whole request (a 10 MiB upload on a slow phone) within 5 minutes.
  server.headersTimeout = 20_000;
  server.requestTimeout = 300_000;
  server.on('clientError', (err: NodeJS.ErrnoException, socket: net.Socket) => {
    if (err.code === 'ECONNRESET' || !socket.writable) return socket.destroy();
    const timeout = err.code === 'ERR_HTTP_REQUEST_TIMEOUT';
    const code: ErrorCode = timeout ? 'REQUEST_TIMEOUT' : 'BAD_REQUEST';
    const { body } = envelope(
      code,
      timeout
        ? 'The request took too long to arrive.'
        : `The HTTP request is malformed (${err.code ?? 'parse error'}).`,
    );
    const status = HTTP_STATUS[code];
    socket.end(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\ncache-control: no-store\r\n` +
        (hsts ? `strict-transport-security: ${HSTS}\r\n` : '') +
        `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  });
  if (dev) server.on('upgrade', app.getUpgradeHandler());

  const shutdown = async (signal: string) => {
    if (draining) return;
    draining = true;
    startDraining();
    const until = Date.now() + e.SHUTDOWN_GRACE_MS;
    // Whatever hangs (a hook, Next's own close), the process is gone a little after its grace period.
    setTimeout(() => {
      console.error('open-verify: shutdown overran its grace period; exiting');
      process.exit(1);
    }, e.SHUTDOWN_GRACE_MS + 5_000);
    console.log(`open-verify: ${signal}: finishing ${inflight.size} request(s) in flight, then background work`);
    server.close();
    server.closeIdleConnections();
    while (inflight.size > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 25));
    server.closeAllConnections();
    await runShutdownHooks(Math.max(1000, until - Date.now()), (m) => console.error(m));
    await Promise.race([app.close().catch(() => {}), new Promise((r) => setTimeout(r, 2_000))]);
    console.log('open-verify: stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  // Started by the launcher with an IPC channel: if the launcher dies (kill -9), this server stops too
  // rather than live on, orphaned, holding its port and its database connections.
  if (process.connected) process.on('disconnect', () => void shutdown('launcher gone'));
  // The parent may ask for this process's memory (the benchmarks: heap and RSS over a soak).
  process.on('message', (m: { type?: string }) => {
    if (m?.type === 'memory') process.send?.({ type: 'memory', ...process.memoryUsage() });
  });

  server.listen(e.PORT, () =>
    console.log(`✓ Ready on ${e.BASE_URL}, port ${e.PORT} (${dev ? 'development' : 'production'})`),
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

/**
 * /v1 on node:http, without Next.js between the socket and the route registry, and the capture page's API
 * (/api/capture/…) likewise (docs/architecture.md "How a /v1 request is served"). The path is matched to its route
 * file by the app router's own table (lib/core/observability/routes.ts) and the file's exported handler for the
 * method serves it, so which operation answers which path and method cannot differ from Next.js's. What the
 * route files do not export themselves is left to Next.js, as is everything when API_FAST_PATH=0. State both
 * copies of lib/ must share lives on globalThis (docs/architecture.md "State of the process").
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { matchRoute, scanRoutes } from '../core/observability/routes';
import { RESPONSE_TEXT, type Answer, type TextResponse } from './respond';
import {
  cutShort,
  declaredLength,
  DISCARD_MAX_BYTES,
  DISCARD_MAX_MS,
  joinChunks,
  refuseDeclaredLength,
  tooLarge,
  tooSlow,
  watchPace,
  type ApiRequest,
} from './body';
import { DomainError } from '../core/errors';
import { ALLOWED_METHODS, API_ANSWER, type ApiAnswerer } from './route';

type NextCtx = { params: Promise<Record<string, string | string[]>> };
export type RouteHandler = (req: Request, ctx: NextCtx) => Promise<Response>;

/** The methods a route file declares itself; anything else is Next.js's to answer (HEAD from GET, OPTIONS). */
const DECLARED = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** A node request as a web Request: headers as the server now holds them, the body a stream of the socket. */
export function toWebRequest(req: IncomingMessage, origin: string): Request {
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined) continue;
    if (Array.isArray(v)) for (const x of v) headers.append(k, x);
    else headers.set(k, v);
  }
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  return new Request(origin + (req.url ?? '/'), {
    method: req.method,
    headers,
    ...(hasBody ? { body: lazyBody(req), duplex: 'half' } : {}),
  } as RequestInit);
}

/**
 * The socket's body as a web stream that touches the node request only once the handler reads it. A request
 * refused before its body (an upload over its bounds, a bad key) leaves the request unread, so node discards the
 * body off the wire once the answer is sent and the connection stays usable for the client's next request; a
 * stream attached at once would have started reading it and then held it paused, the connection stuck.
 */
function lazyBody(req: IncomingMessage): ReadableStream<Uint8Array> {
  let cancelled = false;
  return new ReadableStream<Uint8Array>(
    {
      // One chunk per pull, straight from the node stream (no second web stream in between).
      pull: (controller) =>
        new Promise<void>((resolve) => {
          if (req.readableEnded) {
            controller.close();
            return resolve();
          }
          const done = () => {
            req.off('readable', step);
            req.off('end', onEnd);
            req.off('error', onError);
            req.off('close', onClose);
            resolve();
          };
          const step = () => {
            if (cancelled) return done();
            const chunk = req.read() as Buffer | null;
            if (chunk === null) return; // more on 'readable', or 'end'
            controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
            done();
          };
          const onEnd = () => {
            controller.close();
            done();
          };
          const onError = (e: Error) => {
            controller.error(e);
            done();
          };
          // The client went away mid-body (node emits 'error' too; this covers a close without it).
          const onClose = () => onError(new Error('aborted'));
          req.on('readable', step);
          req.on('end', onEnd);
          req.on('error', onError);
          req.on('close', onClose);
          step();
        }),
      // As a cancelled node stream adapter did: the request (and its connection) is destroyed; except for a body
      // cut off as too slow, whose answer (408) is written first, the connection closed after it (v1Dispatcher).
      cancel: (reason) => {
        cancelled = true;
        if (!(reason instanceof DomainError && reason.code === 'REQUEST_TIMEOUT')) req.destroy();
      },
    },
    { highWaterMark: 0 },
  );
}

/** Node's request headers read as a web `Headers` reads them (lower-case names; a repeated header joined by ", "). */
class NodeHeaders {
  constructor(private readonly h: IncomingMessage['headers']) {}
  get(name: string): string | null {
    const v = this.h[name.toLowerCase()];
    return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
  }
}

/**
 * A node request as the route wrapper reads it (`ApiRequest`, lib/api/body.ts), without the web Request
 * `toWebRequest` would build (its Headers, URL, AbortSignal and body stream, per request): the headers read from
 * node's, a JSON body read whole straight from the socket, a multipart body through the same lazy stream as the
 * web Request's. Either way nothing is read before the route asks for the body.
 */
export class NodeApiRequest implements ApiRequest {
  readonly headers: NodeHeaders;
  readonly method: string;
  private stream: ReadableStream<Uint8Array> | null | undefined;
  constructor(
    private readonly req: IncomingMessage,
    private readonly origin: string,
  ) {
    this.headers = new NodeHeaders(req.headers);
    this.method = req.method ?? 'GET';
  }
  private get hasBody() {
    return this.method !== 'GET' && this.method !== 'HEAD';
  }
  get url(): string {
    return new URL(this.origin + (this.req.url ?? '/')).href;
  }
  get body(): ReadableStream<Uint8Array> | null {
    if (this.stream === undefined) this.stream = this.hasBody ? lazyBody(this.req) : null;
    return this.stream;
  }
  readWhole(limit: number): Promise<Uint8Array> {
    refuseDeclaredLength(this, limit);
    if (!this.hasBody) return Promise.resolve(new Uint8Array(0));
    if (this.stream !== undefined) throw new Error('the body is being read as a stream already');
    return readNodeBody(this.req, limit);
  }
}

/**
 * The body of `req`, at most `limit` bytes, from node's stream without a web stream between: 413 as soon as it
 * passes the limit, the rest then read and dropped (bounded, as lib/api/body.ts's discardRest), BAD_REQUEST when the
 * client goes away before its end. The bytes come back in a fresh array, as readBodyLimited gives them.
 */
function readNodeBody(req: IncomingMessage, limit: number): Promise<Uint8Array> {
  if (req.readableEnded) return Promise.resolve(new Uint8Array(0));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    // Too slow (lib/api/body.ts BODY_PACE): the reading stops there; the 408 is written, then the connection closed.
    const pace = watchPace(declaredLength({ headers: new NodeHeaders(req.headers) }), () => {
      off();
      req.pause();
      reject(tooSlow());
    });
    const off = () => {
      pace.stop();
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onFail);
      req.off('close', onFail);
    };
    const onData = (chunk: Buffer) => {
      total += chunk.byteLength;
      pace.add(chunk.byteLength);
      if (total <= limit) return void chunks.push(chunk);
      off();
      discardNodeRest(req);
      reject(tooLarge(limit));
    };
    const onEnd = () => {
      off();
      resolve(joinChunks(chunks, total));
    };
    // The client went away mid-body (node emits 'error' when it has a listener; 'close' in any case).
    const onFail = () => {
      off();
      reject(cutShort());
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onFail);
    req.on('close', onFail);
  });
}

/** After a refusal mid-body: the rest read and dropped, at most DISCARD_MAX_BYTES or DISCARD_MAX_MS more, then the connection dropped. */
function discardNodeRest(req: IncomingMessage) {
  const until = Date.now() + DISCARD_MAX_MS;
  let n = 0;
  const drop = (chunk: Buffer) => {
    n += chunk.byteLength;
    if (n > DISCARD_MAX_BYTES || Date.now() >= until) {
      req.off('data', drop);
      req.destroy();
    }
  };
  req.on('data', drop);
}

/** An `apiRoute` answer written to node's response: the same status, headers and bytes `writeWebResponse` writes for it. */
export function writeAnswer(res: ServerResponse, answer: Answer): void {
  res.writeHead(answer.status, answer.headers);
  // The client went away: nothing more to send; the observer counts a 499.
  if (res.destroyed) return;
  res.end(answer.text);
}

/** A web Response written to node's: status and headers, then the body streamed with backpressure. */
export async function writeWebResponse(res: ServerResponse, answer: Response): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  answer.headers.forEach((v, k) => {
    if (k !== 'set-cookie') headers[k] = v;
  });
  const cookies = answer.headers.getSetCookie();
  if (cookies.length) headers['set-cookie'] = cookies;
  res.writeHead(answer.status, headers);
  if (!answer.body) {
    res.end();
    return;
  }
  // A JSON answer of lib/api/respond.ts carries its text: written as the one chunk its stream would have given,
  // without reading the stream back.
  const text = (answer as TextResponse)[RESPONSE_TEXT];
  if (typeof text === 'string' && !answer.bodyUsed) {
    if (res.destroyed) return;
    if (text.length > 0) res.write(text);
    res.end();
    return;
  }
  const reader = answer.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (res.destroyed) throw new Error('client gone');
      // Backpressure: the next chunk is read once the socket has taken this one.
      if (!res.write(value))
        await new Promise<void>((resolve) => {
          const go = () => {
            res.off('drain', go);
            res.off('close', go);
            resolve();
          };
          res.on('drain', go);
          res.on('close', go);
        });
    }
    res.end();
  } catch {
    // The client went away mid-answer (or the body failed): nothing more to send; the observer counts a 499.
    void reader.cancel().catch(() => {});
    res.destroy();
  }
}

type Middleware = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;
/**
 * Next.js's own response compression (its `compress` option, on by default): gzip for a compressible answer of
 * 1 KiB or more when the client accepts it, and `Vary: Accept-Encoding`. The same middleware, so /v1 answers are
 * encoded as Next.js encoded them.
 */
const nextCompression = (): Middleware =>
  (createRequire(import.meta.url)('next/dist/compiled/compression') as () => Middleware)();

/**
 * The paths served here: /v1, and the hosted page's own API (`/api/capture/{token}/…`, `apiRoute` files like /v1's),
 * whose refusals under a flood of uploads cost the request loop a fraction of what Next.js's pipeline did
 * (docs/performance.md "Fairness between workspaces under a flood").
 */
const FAST_PREFIXES = ['/v1/', '/api/capture/'];

/** True for a path whose segments are all non-empty: `/a//b` and `/a/` are Next.js's (it redirects them). */
const plainPath = (p: string) => p.length > 1 && !p.endsWith('/') && !p.includes('//');

/**
 * The dispatcher of the project at `root`: its /v1 route files loaded once, now. Returns a function that serves a
 * request and resolves true, or resolves false at once (nothing read, nothing written) for Next.js to serve it.
 */
export type V1Dispatcher = ((req: IncomingMessage, res: ServerResponse) => Promise<boolean>) & {
  /** The methods a path under /v1 or /api/capture supports (for a 405's Allow), or null for a path of no route. */
  allowed: (pathname: string) => string[] | null;
};

export async function v1Dispatcher(root: string, origin: string, opts: { compress: boolean }): Promise<V1Dispatcher> {
  const compress = opts.compress ? nextCompression() : null;
  const appDir = path.join(root, 'app');
  const routes = scanRoutes(appDir).filter(
    (r) => r.template === '/v1' || FAST_PREFIXES.some((p) => r.template.startsWith(p)),
  );
  const handlers = new Map<string, Partial<Record<string, RouteHandler>>>();
  for (const r of routes) {
    if (!/route\.(ts|js)$/.test(r.file)) continue;
    const mod = (await import(pathToFileURL(r.file).href)) as Record<string, unknown>;
    handlers.set(
      r.file,
      Object.fromEntries(DECLARED.filter((m) => typeof mod[m] === 'function').map((m) => [m, mod[m] as RouteHandler])),
    );
  }
  const allowed = (pathname: string): string[] | null => {
    const match = matchRoute(routes, pathname);
    const hs = match ? handlers.get(match.file) : undefined;
    if (!hs) return null;
    const refusing = Object.values(hs).find((h) => h && ALLOWED_METHODS in h) as
      { [ALLOWED_METHODS]: string[] } | undefined;
    return refusing ? refusing[ALLOWED_METHODS] : Object.keys(hs);
  };
  return Object.assign(
    async (req: IncomingMessage, res: ServerResponse) => {
      const target = req.url ?? '/';
      if (!FAST_PREFIXES.some((p) => target.startsWith(p))) return false;
      const q = target.indexOf('?');
      const pathname = q < 0 ? target : target.slice(0, q);
      if (!plainPath(pathname)) return false;
      const match = matchRoute(routes, pathname);
      const handler = match ? handlers.get(match.file)?.[req.method ?? ''] : undefined;
      if (!match || !handler) return false;
      // An `apiRoute` handler: served without a web Request or Response (lib/api/route.ts, API_ANSWER).
      const answerer = (handler as { [API_ANSWER]?: ApiAnswerer })[API_ANSWER];
      if (answerer) {
        if (!URL.canParse(origin + target)) return false; // as toWebRequest: a URL the web API will not take is Next.js's
        compress?.(req, res, () => {});
        const answer = await answerer(new NodeApiRequest(req, origin), match.params);
        // A body cut off as too slow: its answer, then the connection closed (what is left of the body never read).
        if (answer.status === 408 && !req.complete) {
          answer.headers = { ...answer.headers, connection: 'close' };
          res.once('finish', () => setTimeout(() => req.socket.destroy(), 1000).unref());
        }
        writeAnswer(res, answer);
        return true;
      }
      let request: Request;
      try {
        request = toWebRequest(req, origin);
      } catch {
        return false; // a URL the web API will not take: Next.js answers it as before
      }
      compress?.(req, res, () => {});
      const answer = await handler(request, { params: Promise.resolve(match.params) });
      await writeWebResponse(res, answer);
      return true;
    },
    { allowed },
  );
}

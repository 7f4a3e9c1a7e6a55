/**
 * Every HTTP request the server answers, measured where every one passes (server/serve.ts, before Next.js
 * routes it: the API, the capture page and its API, the admin area, assets): `http_requests_total` and
 * `http_request_duration_seconds` by method and route template, and, when tracing is on, the request's SERVER
 * span (OpenTelemetry HTTP semantic conventions), active while Next.js serves it, so every span of that work (the
 * database's, the decision job's through its row) is in its trace.
 *
 * A caller's own `traceparent` is not trusted as a parent (a public endpoint: a client would choose our trace ids and
 * sampling); it is kept as a link. `url.path` has its secret segments (capture, invitation and image-link tokens)
 * replaced and no query.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ROOT_CONTEXT, context, trace, type Span } from '@opentelemetry/api';
import { metrics } from './metrics';
import { routeTable, type RouteTable } from './routes';
import { contextFromTraceparent, SpanKind, SpanStatusCode, tracer, tracingEnabled } from './tracing';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'CONNECT', 'TRACE']);
/** Path parameters that are secrets: never in a span. */
const SECRET_PARAMS = new Set(['token']);
/** The status of a request whose client went away before its answer was complete (nginx's convention). */
export const CLIENT_CLOSED = 499;

export type HttpObserver = (
  req: IncomingMessage,
  res: ServerResponse,
  handle: () => Promise<void> | void,
) => Promise<void>;

/** The path as a span may show it: each secret parameter's segment replaced. */
function safePath(table: RouteTable, pathname: string): string {
  const m = table.match(pathname);
  if (!m) return pathname.length > 256 ? pathname.slice(0, 256) : pathname;
  const secret = new Set(
    Object.entries(m.params)
      .filter(([k]) => SECRET_PARAMS.has(k))
      .flatMap(([, v]) => (Array.isArray(v) ? v : [v])),
  );
  if (secret.size === 0) return pathname;
  return pathname
    .split('/')
    .map((seg) => {
      try {
        return secret.has(decodeURIComponent(seg)) ? 'REDACTED' : seg;
      } catch {
        return seg;
      }
    })
    .join('/');
}

/** The observer of the project at `root` (its route templates read once). */
export function httpObserver(root: string): HttpObserver {
  const table = routeTable(root);
  return async (req, res, handle) => {
    const started = performance.now();
    const method = req.method && METHODS.has(req.method) ? req.method : '_OTHER';
    const target = req.url ?? '/';
    const q = target.indexOf('?');
    const pathname = q < 0 ? target : target.slice(0, q);
    const route = table.label(pathname);
    let span: Span | null = null;
    if (tracingEnabled()) {
      const caller = trace.getSpanContext(contextFromTraceparent(String(req.headers.traceparent ?? '')));
      span = tracer().startSpan(
        `${method} ${route}`,
        {
          kind: SpanKind.SERVER,
          attributes: {
            'http.request.method': method,
            'http.route': route,
            'url.path': safePath(table, pathname),
            'url.scheme': 'http',
            'network.protocol.version': req.httpVersion,
          },
          links: caller ? [{ context: caller }] : [],
        },
        ROOT_CONTEXT,
      );
    }
    res.once('close', () => {
      const status = res.writableFinished ? res.statusCode : CLIENT_CLOSED;
      const m = metrics();
      m.httpRequests.inc({ method, route, status: String(status) });
      m.httpDuration.observe({ method, route }, (performance.now() - started) / 1000);
      if (span) {
        // Next.js writes its own form (`/verify/[token]`) onto the active span as it finishes: ours is set last.
        span.setAttribute('http.route', route);
        span.setAttribute('http.response.status_code', status);
        if (status >= 500) {
          span.setAttribute('error.type', String(status));
          span.setStatus({ code: SpanStatusCode.ERROR });
        }
        span.end();
      }
    });
    if (!span) return handle();
    return context.with(trace.setSpan(ROOT_CONTEXT, span), handle);
  };
}

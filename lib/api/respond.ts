import { DomainError } from '../core/errors';
import { HTTP_STATUS } from './http-status';
import { log } from '../core/log';
import { stringifyJson } from '../core/json-raw';

export type Headers = Record<string, string>;

export const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };

/**
 * The text of a JSON answer, kept on its Response: the custom server writes it as the body without reading the
 * Response's stream back (lib/api/node-dispatch.ts), the same bytes in the same single chunk.
 */
export const RESPONSE_TEXT = Symbol.for('open-verify.response-text');
export type TextResponse = Response & { [RESPONSE_TEXT]?: string };

/**
 * A JSON answer before it is a web Response: the custom server writes it straight to node's response
 * (lib/api/node-dispatch.ts), Next.js gets it as a Response (`toResponse`). `headers` holds every header, the
 * content type and cache-control included, lower-case.
 */
export type Answer = { status: number; headers: Headers; text: string };

/** The answer `json(status, body, headers)` is, without its Response. */
export function jsonAnswer(status: number, body: unknown, headers: Headers = {}): Answer {
  return { status, headers: { ...JSON_HEADERS, ...headers }, text: stringifyJson(body) };
}

export function toResponse(answer: Answer): Response {
  const response: TextResponse = new Response(answer.text, { status: answer.status, headers: answer.headers });
  response[RESPONSE_TEXT] = answer.text;
  return response;
}

export function json(status: number, body: unknown, headers: Headers = {}): Response {
  return toResponse(jsonAnswer(status, body, headers));
}

/** Node and postgres.js codes of a connection that could not be made or was lost. */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
]);
/** SQLSTATEs of a server that cannot serve now: connection exceptions (08), shutting down or starting (57P01-03), full (53300). */
const UNAVAILABLE_SQLSTATE = /^(08...|57P0[123]|53300)$/;

/** True when `err` (or what it wraps: drizzle wraps the driver's error) says the database is out of reach. */
export function databaseUnavailable(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (CONNECTION_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code))) return true;
  }
  return false;
}

/** How long a client should wait when the database is out of reach (a restart takes seconds). */
const DATABASE_RETRY_AFTER_S = 5;

/**
 * The translator: anything thrown becomes the error envelope, its status from the one table. Unknown
 * errors never leak their text. A lost database is not our bug but a moment: 503 with Retry-After.
 */
export function errorResponse(err: unknown, requestId: string, headers: Headers = {}): Response {
  return toResponse(errorAnswer(err, requestId, headers));
}

/** The answer `errorResponse` is, without its Response. */
export function errorAnswer(err: unknown, requestId: string, headers: Headers = {}): Answer {
  if (!(err instanceof DomainError) && databaseUnavailable(err)) {
    log.warn('database unavailable', { request_id: requestId, err });
    err = new DomainError(
      'DATABASE_UNAVAILABLE',
      'The database cannot be reached right now. Retry shortly.',
      undefined,
      DATABASE_RETRY_AFTER_S,
    );
  }
  if (err instanceof DomainError) {
    const error: Record<string, unknown> = { code: err.code, message: err.message };
    if (err.details) error.details = err.details;
    error.request_id = requestId;
    const retry: Headers =
      err.retryAfterSeconds === undefined
        ? {}
        : { 'retry-after': String(Math.max(1, Math.ceil(err.retryAfterSeconds))) };
    return jsonAnswer(HTTP_STATUS[err.code], { error }, { ...headers, ...retry });
  }
  log.error('unhandled error', { request_id: requestId, err });
  return jsonAnswer(
    500,
    { error: { code: 'INTERNAL_ERROR', message: 'An internal error occurred. Retry later.', request_id: requestId } },
    headers,
  );
}

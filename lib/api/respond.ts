import { DomainError } from '../errors';
import { HTTP_STATUS } from './http-status';
import { log } from '../log';

export type Headers = Record<string, string>;

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };

export function json(status: number, body: unknown, headers: Headers = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { ...JSON_HEADERS, ...headers } });
}

export function ok(data: unknown, status = 200, headers: Headers = {}): Response {
  return json(status, { data }, headers);
}

/**
 * The translator: anything thrown becomes the error envelope, its status from the one table. Unknown
 * errors never leak their text.
 */
export function errorResponse(err: unknown, requestId: string, headers: Headers = {}): Response {
  if (err instanceof DomainError) {
    const error: Record<string, unknown> = { code: err.code, message: err.message };
    if (err.details) error.details = err.details;
    error.request_id = requestId;
    const retry: Headers = err.retryAfterSeconds === undefined ? {} : { 'retry-after': String(Math.max(1, Math.ceil(err.retryAfterSeconds))) };
    return json(HTTP_STATUS[err.code], { error }, { ...headers, ...retry });
  }
  log.error('unhandled error', { request_id: requestId, err });
  return json(
    500,
    { error: { code: 'INTERNAL_ERROR', message: 'An internal error occurred. Retry later.', request_id: requestId } },
    headers,
  );
}

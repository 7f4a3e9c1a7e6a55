/**
 * Client-side signing, as an integrator does it. Used by the tests, benchmarks and docs examples, and
 * deliberately independent of the server's verification code path (it shares only the canonical form).
 * `timestamp` (Unix seconds): the request also sends it as X-Request-Timestamp, and it is signed in front of
 * the canonical string, `timestamp + "\n" + canonical` (docs/api.md "Request timestamps").
 */
import { createHmac } from 'node:crypto';
import { canonicalMultipart } from './canonical';

const prefix = (timestamp?: number) => (timestamp === undefined ? '' : `${timestamp}\n`);

export function signJsonRequest(
  secret: string,
  method: string,
  pathWithQuery: string,
  body: string | Uint8Array = '',
  timestamp?: number,
) {
  return createHmac('sha256', secret)
    .update(prefix(timestamp) + method.toUpperCase() + pathWithQuery)
    .update(body)
    .digest('hex');
}

export function signMultipartRequest(
  secret: string,
  method: string,
  pathWithQuery: string,
  fields: [string, string][],
  files: Uint8Array[],
  timestamp?: number,
) {
  return createHmac('sha256', secret)
    .update(prefix(timestamp) + canonicalMultipart(method, pathWithQuery, fields, files))
    .digest('hex');
}

/**
 * Client-side signing, as an integrator does it. Used by the tests, benchmarks and docs examples, and
 * deliberately independent of the server's verification code path (it shares only the canonical form).
 */
import { createHmac } from 'node:crypto';
import { canonicalMultipart } from './canonical';

export function signJsonRequest(secret: string, method: string, pathWithQuery: string, body: string | Uint8Array = '') {
  return createHmac('sha256', secret)
    .update(method.toUpperCase() + pathWithQuery)
    .update(body)
    .digest('hex');
}

export function signMultipartRequest(
  secret: string,
  method: string,
  pathWithQuery: string,
  fields: [string, string][],
  files: Uint8Array[],
) {
  return createHmac('sha256', secret).update(canonicalMultipart(method, pathWithQuery, fields, files)).digest('hex');
}

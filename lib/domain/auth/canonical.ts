/**
 * Canonical request strings (docs/api.md "Authentication").
 * Both are returned as byte parts, so the raw body is hashed exactly as sent, whatever its encoding.
 */
import { sha256Hex } from '../../core/crypto/hash';

/** JSON or bodyless: METHOD + path[?query] + body, no separators. */
export function canonicalJson(method: string, pathWithQuery: string, body: Uint8Array): (string | Uint8Array)[] {
  return [method.toUpperCase() + pathWithQuery, body];
}

/** RFC 3986 percent-encoding: everything but A-Z a-z 0-9 - . _ ~, uppercase hex, over UTF-8 bytes. */
export function rfc3986(value: string): string {
  let out = '';
  for (const byte of Buffer.from(value, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(c) ? c : '%' + byte.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function sortedFormFields(fields: [string, string][]): string {
  return [...fields]
    .sort((a, b) => cmp(a[0], b[0]) || cmp(a[1], b[1]))
    .map(([k, v]) => `${rfc3986(k)}=${rfc3986(v)}`)
    .join('&');
}

export function sortedFileHashes(files: Uint8Array[]): string {
  return files
    .map((f) => sha256Hex(f))
    .sort()
    .join(',');
}

/** Multipart: METHOD + path[?query] + '\n' + sortedFormFields + '\n' + sortedFileHashes. */
export function canonicalMultipart(
  method: string,
  pathWithQuery: string,
  fields: [string, string][],
  files: Uint8Array[],
): string {
  return canonicalMultipartFromHashes(
    method,
    pathWithQuery,
    fields,
    files.map((f) => sha256Hex(f)),
  );
}

/** The same, from the files' lowercase hex SHA-256 (computed while the body streamed). */
export function canonicalMultipartFromHashes(
  method: string,
  pathWithQuery: string,
  fields: [string, string][],
  fileHashes: string[],
): string {
  return `${method.toUpperCase()}${pathWithQuery}\n${sortedFormFields(fields)}\n${[...fileHashes].sort().join(',')}`;
}

/**
 * The service's HTTP server (server/serve.ts) puts the request-target exactly as it came on the wire in
 * this header, replacing whatever a client sent, and says so on globalThis. Next.js rebuilds the URL it hands
 * to route handlers from a parsed query (`?a=%41` becomes `?a=A`, a bare `?` disappears, `&&` collapses), so
 * the wire form is the only faithful one (docs/api.md: "the query string as sent").
 */
export const REQUEST_TARGET_HEADER = 'x-ov-request-target';
const server = globalThis as unknown as { __ovRequestTargetHeader?: boolean };
export const markRequestTargetTrusted = () => {
  server.__ovRequestTargetHeader = true;
};
/** True in a process whose HTTP server sets the headers above (and lib/domain/auth/client-address.ts's) itself. */
export const serverHeadersTrusted = () => server.__ovRequestTargetHeader === true;

/** Path and query exactly as sent: origin-form as is; absolute-form without its scheme and authority. */
export function requestTarget(req: {
  readonly url: string;
  readonly headers: { get(name: string): string | null };
}): string {
  const raw = server.__ovRequestTargetHeader ? req.headers.get(REQUEST_TARGET_HEADER) : null;
  const target = raw ?? req.url;
  // Absolute form (and the URL a handler sees when no server set the header): drop scheme://authority.
  const withoutOrigin = /^[a-z][a-z0-9+.-]*:\/\//i.test(target)
    ? target.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '')
    : target;
  const hash = withoutOrigin.indexOf('#');
  const out = hash >= 0 ? withoutOrigin.slice(0, hash) : withoutOrigin;
  return out.startsWith('/') ? out : '/' + out;
}

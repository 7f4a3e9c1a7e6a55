/**
 * Canonical request strings (interface.md "Authentication" 3-4, decisions.md "Authentication").
 * Both are returned as byte parts, so the raw body is hashed exactly as sent, whatever its encoding.
 */
import { sha256Hex } from '../crypto/hash';

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
  return `${method.toUpperCase()}${pathWithQuery}\n${sortedFormFields(fields)}\n${sortedFileHashes(files)}`;
}

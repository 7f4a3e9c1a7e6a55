/**
 * The canonical request strings and their HMAC-SHA256 (docs/api.md "Authentication"), with WebCrypto only, so
 * the SDK runs on Node 20+, Deno, Bun and edge runtimes alike.
 */
const enc = new TextEncoder();

export function toHex(bytes: ArrayBuffer | Uint8Array): string {
  const b = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  let s = '';
  for (const x of b) s += x.toString(16).padStart(2, '0');
  return s;
}

export async function sha256Hex(data: Uint8Array | string): Promise<string> {
  const bytes = typeof data === 'string' ? enc.encode(data) : data;
  return toHex(await crypto.subtle.digest('SHA-256', bytes as BufferSource));
}

const keys = new Map<string, Promise<CryptoKey>>();
function hmacKey(secret: string): Promise<CryptoKey> {
  let k = keys.get(secret);
  if (!k) {
    k = crypto.subtle.importKey('raw', enc.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [
      'sign',
      'verify',
    ]);
    keys.set(secret, k);
  }
  return k;
}

export function concatBytes(...parts: (Uint8Array | string)[]): Uint8Array {
  const arrays = parts.map((p) => (typeof p === 'string' ? enc.encode(p) : p));
  const out = new Uint8Array(arrays.reduce((n, a) => n + a.byteLength, 0));
  let at = 0;
  for (const a of arrays) {
    out.set(a, at);
    at += a.byteLength;
  }
  return out;
}

/** Lowercase hex HMAC-SHA256 of `message` under `secret`. */
export async function hmacHex(secret: string, message: Uint8Array | string): Promise<string> {
  const data = typeof message === 'string' ? enc.encode(message) : message;
  return toHex(await crypto.subtle.sign('HMAC', await hmacKey(secret), data as BufferSource));
}

/** Constant-time check of a lowercase hex HMAC-SHA256 (WebCrypto's verify compares in constant time). */
export async function hmacVerify(secret: string, message: Uint8Array, signatureHex: string): Promise<boolean> {
  if (!/^[0-9a-f]{64}$/.test(signatureHex)) return false;
  const sig = new Uint8Array(32);
  for (let i = 0; i < 32; i++) sig[i] = parseInt(signatureHex.slice(i * 2, i * 2 + 2), 16);
  return crypto.subtle.verify('HMAC', await hmacKey(secret), sig as BufferSource, message as BufferSource);
}

/** RFC 3986: everything but A-Z a-z 0-9 - . _ ~ percent-encoded (uppercase hex), over UTF-8. */
export function rfc3986(value: string): string {
  let out = '';
  for (const byte of enc.encode(value)) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(c) ? c : '%' + byte.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

/** JSON or bodyless requests: METHOD + path[?query] + body, no separators. */
export function canonicalJson(method: string, pathWithQuery: string, body: Uint8Array): Uint8Array {
  return concatBytes(method.toUpperCase() + pathWithQuery, body);
}

/**
 * A request timestamp (an extension, docs/api.md "Request timestamps"): Unix seconds, sent as X-Request-Timestamp
 * and signed in front of the canonical string, `timestamp + "\n" + canonical`.
 */
export function withTimestamp(timestamp: number, canonical: Uint8Array | string): Uint8Array {
  return concatBytes(`${timestamp}\n`, canonical);
}

/** multipart/form-data: METHOD + path[?query] + "\n" + sorted fields + "\n" + sorted file SHA-256s. */
export function canonicalMultipart(
  method: string,
  pathWithQuery: string,
  fields: [string, string][],
  fileHashes: string[],
): string {
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const sorted = [...fields]
    .sort((a, b) => cmp(a[0], b[0]) || cmp(a[1], b[1]))
    .map(([k, v]) => `${rfc3986(k)}=${rfc3986(v)}`)
    .join('&');
  return `${method.toUpperCase()}${pathWithQuery}\n${sorted}\n${[...fileHashes].sort().join(',')}`;
}

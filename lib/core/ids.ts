import { randomBytes } from 'node:crypto';
import { randomBytesPooled } from './crypto/random';

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

/** 10 characters of millisecond time then 16 random: sortable by creation, unguessable enough for ids. */
function sortableBody(now = Date.now()): string {
  let t = now;
  let time = '';
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  // 80 random bits, 16 base32 digits: two 40-bit halves (each exact in a double), 8 digits each, big-endian.
  const b = randomBytesPooled(10);
  return time + base32Of40(b.readUIntBE(0, 5)) + base32Of40(b.readUIntBE(5, 5));
}

/** A 40-bit number as 8 Crockford base32 digits. */
function base32Of40(n: number): string {
  let out = '';
  for (let i = 0; i < 8; i++) {
    out = CROCKFORD[n % 32] + out;
    n = Math.floor(n / 32);
  }
  return out;
}

export type IdPrefix =
  | 'ws'
  | 'key'
  | 'con'
  | 'med'
  | 'aud'
  | 'adm'
  | 'req'
  | 'evt'
  | 'wat'
  | 'job'
  | 'blk'
  | 'ses'
  | 'rcp'
  | 'rk'
  | 'inv'
  | 'wrq'
  | 'iaca';

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${sortableBody()}`;
}

/** RFC 9562 UUID version 7: time-ordered, so verification ids sort by creation. */
export function uuidv7(now = Date.now()): string {
  const b = randomBytesPooled(16);
  b.writeUIntBE(now, 0, 6);
  b[6] = (b[6] & 0x0f) | 0x70;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Uniformly random [A-Za-z0-9] string (rejection sampling, no modulo bias). */
export function randomAlnum(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += ALNUM[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** 256-bit token, URL-safe. */
export function randomToken(): string {
  return randomBytesPooled(32).toString('base64url');
}

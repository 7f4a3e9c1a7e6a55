/**
 * Random bytes for ids, tokens and nonces, drawn from a pool that OpenSSL fills 4 KiB at a time, as node's own
 * `crypto.randomUUID` does: a call into OpenSSL costs about as much for 4 KiB as for 10 bytes, and a create made
 * five of them (its request id, the verification's id, the capture token, the token's IV, its audit entry's id),
 * about 6 % of its CPU time on the server (docs/performance.md "API throughput"). The bytes are the same
 * cryptographically secure ones: each is handed out once, never again, and the pool is refilled when spent.
 */
import { randomFillSync } from 'node:crypto';

const POOL_BYTES = 4096;
/** Larger requests (keys) take their own call. */
const POOLED_MAX = 64;

let pool = Buffer.alloc(0);
let at = 0;

/** `n` fresh random bytes (a view of the pool, for the caller alone: read or overwrite it, do not keep the pool alive with it for long). */
export function randomBytesPooled(n: number): Buffer {
  if (n > POOLED_MAX) return randomFillSync(Buffer.allocUnsafe(n));
  if (at + n > pool.length) {
    // A new buffer rather than a refill: views handed out earlier keep their bytes.
    pool = randomFillSync(Buffer.allocUnsafeSlow(POOL_BYTES));
    at = 0;
  }
  const out = pool.subarray(at, at + n);
  at += n;
  return out;
}

/**
 * Failed signatures, counted per API key and client address (docs/api.md "Authentication"). The public key is
 * no secret (every webhook carries it as X-Auth-Client), so anyone can send requests that name it; what they
 * cannot do is sign them. A key and address whose signatures failed `MAX_FAILURES` times in the last minute is
 * refused with 429 RATE_LIMIT before its next bodies are read, until the oldest failure leaves the minute.
 * A request whose signature can be checked cheaply (no body, or JSON of at most 64 KiB) is checked first and
 * served when it is right, so a correctly signed request is refused only by the workspace's rate limit; an
 * upload's signature needs its whole body, so an upload from a key and address over the count waits.
 *
 * Per server process, in memory on globalThis (every route bundle shares it), bounded in size: each failure
 * also spends one request of the workspace's own rate limit (Postgres, shared by every process).
 */
import { DomainError } from '../core/errors';

export const MAX_FAILURES = 10;
const WINDOW_MS = 60_000;
/** Keys and addresses tracked at once; the oldest are forgotten first. */
const MAX_TRACKED = 50_000;

const g = globalThis as unknown as { __ovSignatureFailures?: Map<string, number[]> };
const failures = (): Map<string, number[]> => (g.__ovSignatureFailures ??= new Map());
const keyOf = (apiKey: string, address: string) => `${apiKey}\u0000${address}`;

/** The failures of the last minute for this key and address, pruned. */
function recent(apiKey: string, address: string, now: number): number[] {
  const k = keyOf(apiKey, address);
  const list = failures().get(k);
  if (!list) return [];
  const kept = list.filter((t) => t > now - WINDOW_MS);
  if (kept.length === 0) failures().delete(k);
  else if (kept.length !== list.length) failures().set(k, kept);
  return kept;
}

export function recordSignatureFailure(apiKey: string, address: string, now = Date.now()): void {
  const m = failures();
  const k = keyOf(apiKey, address);
  const list = recent(apiKey, address, now);
  list.push(now);
  m.delete(k); // re-inserted: the map's order is the order of last failure
  m.set(k, list.slice(-MAX_FAILURES));
  if (m.size > MAX_TRACKED) m.delete(m.keys().next().value!);
}

/** Seconds until this key and address may be heard again (at least 1), or 0 when it is under the count. */
export function signatureFailureWait(apiKey: string, address: string, now = Date.now()): number {
  const list = recent(apiKey, address, now);
  if (list.length < MAX_FAILURES) return 0;
  return Math.max(1, Math.ceil((list[list.length - MAX_FAILURES] + WINDOW_MS - now) / 1000));
}

export function tooManyFailures(seconds: number): DomainError {
  return new DomainError(
    'RATE_LIMIT',
    `Too many requests with a wrong signature from this address: at most ${MAX_FAILURES} a minute. Retry after ${seconds} s.`,
    { limit: MAX_FAILURES, retry_after: seconds, scope: 'failed_signatures' },
    seconds,
  );
}

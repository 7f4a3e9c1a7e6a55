/**
 * Failed signatures (docs/api.md "Authentication", SECURITY.md "Failed signatures and uploads"). Requests that name
 * a public key but cannot sign never spend the workspace's rate limit; they have their own bounds, per key and
 * address (`MAX_FAILURES`, 10 a minute) and per key (`MAX_KEY_FAILURES`, 100 a minute), counted atomically in
 * Postgres (one `insert … on conflict do update … returning`) so that every server process sees one count. An
 * upload's failure is reserved before its body is read (`reserveSignatureAttempt`) and given back when the
 * signature is proven. How, in full: docs/architecture.md "Notes behind the code".
 */
import { sql } from 'drizzle-orm';
import type { DbOrTx } from '@/lib/db/client';
import { apiSignatureFailures } from '@/lib/db/schema';
import { DomainError } from '../core/errors';
import { metrics } from '../core/observability/metrics';

/** Failed signatures a minute per API key and client address. */
export const MAX_FAILURES = 10;
/** Failed signatures a minute per API key, from every address together. */
export const MAX_KEY_FAILURES = 100;
const WINDOW_MS = 60_000;

export type CountedFailure = {
  /** Over a bound once this failure is counted (this one included). */
  over: boolean;
  /** Seconds until the bound that is over lets the next one through (at least 1), 0 when under. */
  wait: number;
  /** The rows counted and their windows: what `releaseSignatureAttempt` takes back. */
  rows: { key: string; windowStartedAt: number }[];
};

const keysOf = (apiKey: string, address: string) => ({ key: `key:${apiKey}`, addr: `addr:${apiKey} ${address}` });

/** Adds one failure to the key's and the key-and-address's counts, in one statement, and says whether either is over. */
export async function countSignatureFailure(
  db: DbOrTx,
  apiKey: string,
  address: string,
  now = Date.now(),
): Promise<CountedFailure> {
  const { key, addr } = keysOf(apiKey, address);
  const stale = now - WINDOW_MS;
  const rows = await db.execute<{ key: string; failures: number; window_started_at: string }>(sql`
    insert into ${apiSignatureFailures} as f (key, failures, window_started_at)
    values (${key}, 1, ${now}::bigint), (${addr}, 1, ${now}::bigint)
    on conflict (key) do update set
      failures = case when f.window_started_at <= ${stale}::bigint then 1 else f.failures + 1 end,
      window_started_at = case when f.window_started_at <= ${stale}::bigint then ${now}::bigint else f.window_started_at end
    returning key, failures, window_started_at`);
  let wait = 0;
  for (const r of rows) {
    const bound = r.key === key ? MAX_KEY_FAILURES : MAX_FAILURES;
    if (Number(r.failures) > bound)
      wait = Math.max(wait, Math.max(1, Math.ceil((Number(r.window_started_at) + WINDOW_MS - now) / 1000)));
  }
  await pruneNowAndThen(db, now);
  return {
    over: wait > 0,
    wait,
    rows: rows.map((r) => ({ key: r.key, windowStartedAt: Number(r.window_started_at) })),
  };
}

/**
 * An upload's place in the counts before its body is read: counted as a failure now, 429 at once when that puts
 * the key or the key and address over a bound (the body is then never read, and the count is given back: the
 * refusal itself is no failure).
 */
export async function reserveSignatureAttempt(db: DbOrTx, apiKey: string, address: string): Promise<CountedFailure> {
  const counted = await countSignatureFailure(db, apiKey, address);
  if (counted.over) {
    await releaseSignatureAttempt(db, counted);
    throw tooManyFailures(counted.wait);
  }
  return counted;
}

/** Gives back a counted failure (the signature was proven), in the windows it was counted in. */
export async function releaseSignatureAttempt(db: DbOrTx, counted: CountedFailure): Promise<void> {
  const [a, b] = counted.rows;
  await db.execute(sql`
    update ${apiSignatureFailures} set failures = failures - 1
    where failures > 0 and ((key = ${a.key} and window_started_at = ${a.windowStartedAt}::bigint)
      or (key = ${b.key} and window_started_at = ${b.windowStartedAt}::bigint))`);
}

const g = globalThis as unknown as { __ovSignatureFailuresPruned?: number };
/** Rows whose window ended long ago are deleted, by each process at most once a minute. */
async function pruneNowAndThen(db: DbOrTx, now: number) {
  if ((g.__ovSignatureFailuresPruned ?? 0) > now - WINDOW_MS) return;
  g.__ovSignatureFailuresPruned = now;
  await db.execute(sql`delete from ${apiSignatureFailures} where window_started_at < ${now - 10 * WINDOW_MS}::bigint`);
}

export function tooManyFailures(seconds: number): DomainError {
  metrics().rateLimitRefusals.inc({ scope: 'failed_signatures' });
  return new DomainError(
    'RATE_LIMIT',
    `Too many requests with a wrong signature for this key from this address: at most ${MAX_FAILURES} a minute (${MAX_KEY_FAILURES} from all addresses). Retry after ${seconds} s.`,
    { limit: MAX_FAILURES, retry_after: seconds, scope: 'failed_signatures' },
    seconds,
  );
}

/**
 * Per-workspace rolling-minute limit, counted atomically in Postgres (rate_limit_take() in the
 * migrations) so it holds across every server process on the database.
 */
import { sql } from 'drizzle-orm';
import type { DbOrTx } from '@/lib/db/client';
import { DomainError } from '../../core/errors';
import { metrics } from '../../core/observability/metrics';

export type RateLimitState = {
  limit: number;
  remaining: number;
  resetAt: number;
  retryAfter: number;
  allowed: boolean;
};

/** The scope a key's prefix names (`ws:` a workspace's API limit, `cap:` a capture link's), for the refusal count. */
const SCOPE_OF_PREFIX: Record<string, string> = { ws: 'workspace', cap: 'capture_link' };

export async function takeRateLimit(
  db: DbOrTx,
  key: string,
  limit: number,
  nowMs = Date.now(),
): Promise<RateLimitState> {
  const rows = await db.execute<{ allowed: boolean; remaining: number; retry_after_s: number; reset_at_s: string }>(
    sql`select * from rate_limit_take(${key}, ${limit}::int, ${nowMs}::bigint)`,
  );
  const r = rows[0];
  if (!r.allowed)
    metrics().rateLimitRefusals.inc({ scope: SCOPE_OF_PREFIX[key.slice(0, key.indexOf(':'))] ?? 'other' });
  return {
    limit,
    allowed: r.allowed,
    remaining: Number(r.remaining),
    retryAfter: Number(r.retry_after_s),
    resetAt: Number(r.reset_at_s),
  };
}

export function rateLimitError(s: RateLimitState, scope = 'this workspace'): DomainError {
  return new DomainError(
    'RATE_LIMIT',
    `Too many requests: at most ${s.limit} per minute for ${scope}. Retry after ${s.retryAfter} s.`,
    { limit: s.limit, retry_after: s.retryAfter },
    s.retryAfter,
  );
}

/**
 * `key`'s state without taking a request from it: for a request whose body must be read before it may spend the
 * limit (its signature is checked over the body), so that a workspace already over its limit is refused unread.
 */
export async function peekRateLimit(
  db: DbOrTx,
  key: string,
  limit: number,
  nowMs = Date.now(),
): Promise<RateLimitState> {
  const nowS = Math.floor(nowMs / 1000);
  const rows = await db.execute<{ total: number; oldest: string | null }>(
    sql`select coalesce(sum(u.c), 0)::int as total, min(u.s) as oldest
        from rate_limits r, unnest(r.seconds, r.counts) as u(s, c)
        where r.key = ${key} and u.s > ${nowS - 60}::bigint`,
  );
  const total = Number(rows[0]?.total ?? 0);
  const resetAt = (rows[0]?.oldest == null ? nowS : Number(rows[0].oldest)) + 60;
  const allowed = total < limit;
  if (!allowed) metrics().rateLimitRefusals.inc({ scope: SCOPE_OF_PREFIX[key.slice(0, key.indexOf(':'))] ?? 'other' });
  return {
    limit,
    allowed,
    remaining: Math.max(limit - total, 0),
    resetAt,
    retryAfter: allowed ? 0 : Math.max(1, Math.ceil((resetAt * 1000 - nowMs) / 1000)),
  };
}

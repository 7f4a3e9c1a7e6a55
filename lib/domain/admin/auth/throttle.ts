/**
 * The sign-in throttle: failed attempts (a wrong password, an unknown email, a wrong second-factor code)
 * are counted per account (the email as typed, whether or not such an admin exists, so the answer for an
 * unknown email is the same) and per client address (the connection's, or behind a trusted proxy the one it
 * names: lib/domain/auth/client-address.ts), in Postgres so that every server instance counts
 * the same attempts. Each attempt is counted before it is checked, in one statement (`takeAttempt`), so
 * concurrent guesses cannot race past the count; past the limit the key is locked for a while, and a locked
 * key is refused before the password is even checked.
 */
import { inArray, sql } from 'drizzle-orm';
import { adminSignInThrottle } from '@/lib/db/schema';
import type { DbOrTx } from '@/lib/db/client';
import { metrics } from '../../../core/observability/metrics';

export const THROTTLE = {
  account: { maxFailures: 5, windowSeconds: 15 * 60, lockSeconds: 15 * 60 },
  address: { maxFailures: 20, windowSeconds: 15 * 60, lockSeconds: 15 * 60 },
} as const;

export type ThrottleKeys = { account: string; address: string | null };

const keysOf = (k: ThrottleKeys) => [
  `account:${k.account.trim().toLowerCase()}`,
  ...(k.address ? [`address:${k.address}`] : []),
];

/**
 * One attempt, checked and recorded in one statement before the password or code is checked: each key's count
 * goes up by one (a new window when the old one has passed) and comes back with its lock. The attempt may be
 * checked when no key is locked and no count has passed its limit with it; otherwise it is refused unchecked (and
 * a count past its limit locks its key). So however many guesses arrive at once, at most `maxFailures` of an
 * account's are checked in its window: the row lock of the upsert puts them in one order.
 */
export type Attempt = {
  /** Seconds until the attempt could be heard (the longest lock); 0 when it may be checked. */
  refusedFor: number;
  rows: { key: string; failures: number; windowStartedAt: string }[];
};

const limitOf = (key: string) => (key.startsWith('account:') ? THROTTLE.account : THROTTLE.address);

export async function takeAttempt(db: DbOrTx, k: ThrottleKeys, now: Date): Promise<Attempt> {
  // Both kinds of key have the same window and lock (THROTTLE); only their limits differ.
  const at = now.toISOString();
  const windowStart = new Date(now.getTime() - THROTTLE.account.windowSeconds * 1000).toISOString();
  const lockUntil = new Date(now.getTime() + THROTTLE.account.lockSeconds * 1000).toISOString();
  const keys = keysOf(k);
  const values = sql.join(
    keys.map((key) => sql`(${key}, 1, ${at}::timestamptz, null::timestamptz)`),
    sql`, `,
  );
  const count = sql`(case when t.window_started_at < ${windowStart}::timestamptz then 1 else t.failures + 1 end)`;
  const max = sql`(case when t.key like 'account:%' then ${THROTTLE.account.maxFailures}::int else ${THROTTLE.address.maxFailures}::int end)`;
  // Timestamps as ISO text (a raw statement's Date parameters are not serialised by the driver).
  const rows = await db.execute<{
    key: string;
    failures: number;
    window_started_at: string;
    locked_until: string | null;
  }>(sql`
    insert into ${adminSignInThrottle} as t (key, failures, window_started_at, locked_until)
    values ${values}
    on conflict (key) do update set
      failures = ${count},
      window_started_at = case when t.window_started_at < ${windowStart}::timestamptz then ${at}::timestamptz else t.window_started_at end,
      locked_until = case when ${count} > ${max} and (t.locked_until is null or t.locked_until < ${at}::timestamptz) then ${lockUntil}::timestamptz else t.locked_until end
    returning key, failures, window_started_at::text, locked_until::text`);
  let until = 0;
  for (const r of rows) {
    const locked = r.locked_until ? new Date(r.locked_until).getTime() : 0;
    if (locked > now.getTime()) until = Math.max(until, locked);
    else if (Number(r.failures) > limitOf(r.key).maxFailures)
      until = Math.max(until, now.getTime() + limitOf(r.key).lockSeconds * 1000);
  }
  const refusedFor = until > now.getTime() ? Math.ceil((until - now.getTime()) / 1000) : 0;
  // Every caller refuses the sign-in when a key is locked.
  if (refusedFor > 0) metrics().rateLimitRefusals.inc({ scope: 'admin_sign_in' });
  return {
    refusedFor,
    rows: rows.map((r) => ({ key: r.key, failures: Number(r.failures), windowStartedAt: r.window_started_at })),
  };
}

/**
 * The attempt was checked and was wrong: it stays counted, and a key whose count has reached its limit is locked.
 * Returns the seconds the sign-in is now locked for (0 when not).
 */
export async function attemptFailed(db: DbOrTx, attempt: Attempt, now: Date): Promise<number> {
  const full = attempt.rows.filter((r) => r.failures >= limitOf(r.key).maxFailures).map((r) => r.key);
  if (full.length === 0) return 0;
  const lockUntil = new Date(now.getTime() + THROTTLE.account.lockSeconds * 1000);
  await db.execute(
    sql`update ${adminSignInThrottle} set locked_until = ${lockUntil.toISOString()}::timestamptz where ${inArray(adminSignInThrottle.key, full)}`,
  );
  metrics().rateLimitRefusals.inc({ scope: 'admin_sign_in' });
  return THROTTLE.account.lockSeconds;
}

/**
 * The attempt was right: the account's count is cleared; the address's attempt is given back (in its window), not
 * its earlier failures (one good account must not launder others).
 */
export async function attemptSucceeded(db: DbOrTx, attempt: Attempt, account: string): Promise<void> {
  await clearAccount(db, account);
  for (const r of attempt.rows.filter((x) => x.key.startsWith('address:'))) {
    await db.execute(
      sql`update ${adminSignInThrottle} set failures = failures - 1 where key = ${r.key} and failures > 0 and window_started_at = ${r.windowStartedAt}::timestamptz`,
    );
  }
}

/** A correct sign-in clears the account's count (not the address's: one good account must not launder others). */
export async function clearAccount(db: DbOrTx, account: string): Promise<void> {
  await db.delete(adminSignInThrottle).where(inArray(adminSignInThrottle.key, keysOf({ account, address: null })));
}

/** Where to come back to after signing in: a path of the admin area only (never another site, never sign-in itself). */
export function safeNext(raw: unknown): string {
  const s = typeof raw === 'string' ? raw : '';
  return /^\/admin(\/|\?|$)/.test(s) && !s.includes('\\') && !/^\/admin\/sign-in(\/|\?|$)/.test(s) && !/[\r\n]/.test(s)
    ? s
    : '/admin';
}

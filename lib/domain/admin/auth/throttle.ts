/**
 * The sign-in throttle: failed attempts (a wrong password, an unknown email, a wrong second-factor code)
 * are counted per account (the email as typed, whether or not such an admin exists, so the answer for an
 * unknown email is the same) and per client address (the connection's, or behind a trusted proxy the one it
 * names: lib/domain/auth/client-address.ts), in Postgres so that every server instance counts
 * the same attempts. Past the limit the key is locked for a while; a locked key is refused before the
 * password is even checked.
 */
import { inArray, sql } from 'drizzle-orm';
import { adminSignInThrottle } from '@/db/schema';
import type { DbOrTx } from '@/db/client';
import { metrics } from '../../../core/observability/metrics';

export const THROTTLE = {
  account: { maxFailures: 5, windowSeconds: 15 * 60, lockSeconds: 15 * 60 },
  address: { maxFailures: 20, windowSeconds: 15 * 60, lockSeconds: 15 * 60 },
} as const;

export type ThrottleKeys = { account: string; address: string | null };

const keysOf = (k: ThrottleKeys) => [`account:${k.account.trim().toLowerCase()}`, ...(k.address ? [`address:${k.address}`] : [])];

/** Seconds until every key is unlocked; 0 when none is locked (a refusal, counted in `rate_limit_refusals_total`). */
export async function lockedFor(db: DbOrTx, k: ThrottleKeys, now: Date): Promise<number> {
  const rows = await db.select({ lockedUntil: adminSignInThrottle.lockedUntil }).from(adminSignInThrottle).where(inArray(adminSignInThrottle.key, keysOf(k)));
  const until = Math.max(0, ...rows.map((r) => r.lockedUntil?.getTime() ?? 0));
  if (until <= now.getTime()) return 0;
  // Every caller refuses the sign-in when a key is locked.
  metrics().rateLimitRefusals.inc({ scope: 'admin_sign_in' });
  return Math.ceil((until - now.getTime()) / 1000);
}

/** Counts one failure against each key (one statement per key, atomic under concurrency). */
export async function recordFailure(db: DbOrTx, k: ThrottleKeys, now: Date): Promise<void> {
  for (const key of keysOf(k)) {
    const p = key.startsWith('account:') ? THROTTLE.account : THROTTLE.address;
    // Timestamps as ISO text (a raw statement's Date parameters are not serialised by the driver).
    const at = now.toISOString();
    const windowStart = new Date(now.getTime() - p.windowSeconds * 1000).toISOString();
    const lockUntil = new Date(now.getTime() + p.lockSeconds * 1000).toISOString();
    // A new window starts when the old one has passed; reaching the limit (re)sets the lock.
    await db.execute(sql`
      insert into ${adminSignInThrottle} (key, failures, window_started_at, locked_until)
      values (${key}, 1, ${at}::timestamptz, ${p.maxFailures <= 1 ? lockUntil : null}::timestamptz)
      on conflict (key) do update set
        failures = case when ${adminSignInThrottle.windowStartedAt} < ${windowStart}::timestamptz then 1 else ${adminSignInThrottle.failures} + 1 end,
        window_started_at = case when ${adminSignInThrottle.windowStartedAt} < ${windowStart}::timestamptz then ${at}::timestamptz else ${adminSignInThrottle.windowStartedAt} end,
        locked_until = case
          when (case when ${adminSignInThrottle.windowStartedAt} < ${windowStart}::timestamptz then 1 else ${adminSignInThrottle.failures} + 1 end) >= ${p.maxFailures}
          then ${lockUntil}::timestamptz
          else ${adminSignInThrottle.lockedUntil} end`);
  }
}

/** A correct sign-in clears the account's count (not the address's: one good account must not launder others). */
export async function clearAccount(db: DbOrTx, account: string): Promise<void> {
  await db.delete(adminSignInThrottle).where(inArray(adminSignInThrottle.key, keysOf({ account, address: null })));
}

/** Where to come back to after signing in: a path of the admin area only (never another site, never sign-in itself). */
export function safeNext(raw: unknown): string {
  const s = typeof raw === 'string' ? raw : '';
  return /^\/admin(\/|\?|$)/.test(s) && !s.includes('\\') && !/^\/admin\/sign-in(\/|\?|$)/.test(s) && !/[\r\n]/.test(s) ? s : '/admin';
}

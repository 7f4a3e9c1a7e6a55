/**
 * Signing in, framework-free: the password step, the second-factor step and single sign-on's mapping
 * onto an admin. Each step ends in a session row (lib/domain/admin/auth/sessions.ts); the server actions hand
 * its one-time ticket to Auth.js, which sets the cookie. The same answer for an unknown email and a wrong
 * password, throttled alike (throttle.ts).
 */
import { and, eq, isNull, lt, or } from 'drizzle-orm';
import { z } from 'zod';
import { adminRecoveryCodes, adminSessions, adminUsers } from '@/lib/db/schema';
import type { DbOrTx } from '@/lib/db/client';
import { audit } from '../../audit/audit';
import { sha256Hex } from '../../../core/crypto/hash';
import { openWithKek } from '../../../core/crypto/secretbox';
import { env } from '../../../core/env';
import { checkAdminPassword } from '../users';
import { attemptFailed, attemptSucceeded, takeAttempt } from './throttle';
import { createSession, loadSession, setSessionStage, type SessionStage } from './sessions';
import { matchTotp } from './totp';
import { totpAad } from '../../../core/crypto/sealed-columns';

export type StepResult =
  | { ok: true; stage: SessionStage; sessionId: string; ticket?: string }
  | { ok: false; error: 'invalid' | 'throttled'; retryAfterSeconds?: number };

type Client = { ip: string | null; userAgent: string | null; now: Date };

const passwordInput = z.object({ email: z.string().trim().min(1).max(320), password: z.string().min(1).max(200) });

export { totpAad };

export const totpRequiredFor = (u: { totpRequired: boolean }) => u.totpRequired || env().ADMIN_REQUIRE_TOTP === '1';

/** Where a new session starts: a code is due when TOTP is on; enrolment first when it is required but off. */
function firstStage(u: { totpSecret: string | null; totpRequired: boolean }): SessionStage {
  if (u.totpSecret) return 'second_factor';
  return totpRequiredFor(u) ? 'enrol' : 'full';
}

export async function passwordStep(
  db: DbOrTx,
  input: { email: unknown; password: unknown } & Client,
): Promise<StepResult> {
  const parsed = passwordInput.safeParse({ email: input.email, password: input.password });
  const email = parsed.success
    ? parsed.data.email.toLowerCase()
    : String(input.email ?? '')
        .slice(0, 320)
        .toLowerCase();
  const keys = { account: email, address: input.ip };
  // Checked and counted in one statement before the password is checked (throttle.ts): a guess past the limit is
  // refused unchecked, however many arrive at once.
  const attempt = await takeAttempt(db, keys, input.now);
  if (attempt.refusedFor > 0) return { ok: false, error: 'throttled', retryAfterSeconds: attempt.refusedFor };
  const admin = parsed.success ? await checkAdminPassword(db, email, parsed.data.password) : null;
  if (!admin) {
    const after = await attemptFailed(db, attempt, input.now);
    await audit(db, {
      actor: 'anonymous',
      action: 'admin.sign_in_failed',
      data: { email, ip: input.ip, step: 'password' },
    });
    return after > 0 ? { ok: false, error: 'throttled', retryAfterSeconds: after } : { ok: false, error: 'invalid' };
  }
  await attemptSucceeded(db, attempt, email);
  const [u] = await db.select().from(adminUsers).where(eq(adminUsers.id, admin.id));
  const stage = firstStage(u);
  const s = await createSession(db, {
    userId: u.id,
    method: 'password',
    stage,
    ip: input.ip,
    userAgent: input.userAgent,
    now: input.now,
  });
  await audit(db, {
    actor: `admin:${u.id}`,
    action: 'admin.signed_in',
    data: { method: 'password', stage, ip: input.ip, session: s.id },
  });
  return { ok: true, stage, sessionId: s.id, ticket: s.ticket };
}

/** Recovery codes are typed with or without the dash, in any case. */
export const normaliseRecoveryCode = (c: string) => c.replace(/[\s-]/g, '').toLowerCase();

/** The second step: a TOTP code, or one of the recovery codes (each works once). */
export async function secondFactorStep(
  db: DbOrTx,
  input: { sessionId: string; code: unknown } & Client,
): Promise<StepResult> {
  const loaded = await loadSession(db, input.sessionId, input.now);
  if (!loaded || loaded.stage !== 'second_factor') return { ok: false, error: 'invalid' };
  const { actor } = loaded;
  const keys = { account: actor.email, address: input.ip };
  const attempt = await takeAttempt(db, keys, input.now);
  if (attempt.refusedFor > 0) return { ok: false, error: 'throttled', retryAfterSeconds: attempt.refusedFor };
  const code = typeof input.code === 'string' ? input.code.trim().slice(0, 40) : '';
  const method = await redeemCode(db, actor.userId, code, input.now);
  if (!method) {
    const after = await attemptFailed(db, attempt, input.now);
    await audit(db, {
      actor: `admin:${actor.userId}`,
      action: 'admin.sign_in_failed',
      data: { email: actor.email, ip: input.ip, step: 'second_factor' },
    });
    return after > 0 ? { ok: false, error: 'throttled', retryAfterSeconds: after } : { ok: false, error: 'invalid' };
  }
  await attemptSucceeded(db, attempt, actor.email);
  await setSessionStage(db, input.sessionId, 'full');
  await audit(db, {
    actor: `admin:${actor.userId}`,
    action: 'admin.second_factor_passed',
    data: { method, session: input.sessionId },
  });
  return { ok: true, stage: 'full', sessionId: input.sessionId };
}

/**
 * Accepts a TOTP code (each 30-second step once: the step is recorded with a conditional update, so two
 * requests racing with one code cannot both pass) or consumes a recovery code. Returns which, or null.
 */
export async function redeemCode(
  db: DbOrTx,
  userId: string,
  code: string,
  now: Date,
): Promise<'totp' | 'recovery_code' | null> {
  const [u] = await db.select().from(adminUsers).where(eq(adminUsers.id, userId));
  if (!u?.totpSecret) return null;
  if (/^\d{6}$/.test(code.replace(/\s/g, ''))) {
    const step = matchTotp(openWithKek(u.totpSecret, totpAad(u.id)).toString(), code, now, u.totpLastStep);
    if (step === null) return null;
    const won = await db
      .update(adminUsers)
      .set({ totpLastStep: step })
      .where(and(eq(adminUsers.id, u.id), or(isNull(adminUsers.totpLastStep), lt(adminUsers.totpLastStep, step))))
      .returning({ id: adminUsers.id });
    return won.length ? 'totp' : null;
  }
  const used = await db
    .delete(adminRecoveryCodes)
    .where(
      and(
        eq(adminRecoveryCodes.adminUserId, u.id),
        eq(adminRecoveryCodes.codeHash, sha256Hex(normaliseRecoveryCode(code))),
      ),
    )
    .returning({ h: adminRecoveryCodes.codeHash });
  return used.length ? 'recovery_code' : null;
}

/**
 * Single sign-on: the admin whose email the provider vouches for. No account is created by signing in:
 * an operator adds admins (npm run ops -- admin:create). The session's first stage follows the same
 * second-factor rules as a password sign-in.
 */
export async function ssoStep(
  db: DbOrTx,
  input: { email: unknown; emailVerified: unknown } & Client,
): Promise<StepResult> {
  const email = typeof input.email === 'string' ? input.email.trim().toLowerCase() : '';
  const [u] =
    email && input.emailVerified !== false ? await db.select().from(adminUsers).where(eq(adminUsers.email, email)) : [];
  if (!u) {
    await audit(db, {
      actor: 'anonymous',
      action: 'admin.sign_in_failed',
      data: { email: email || null, ip: input.ip, step: 'sso' },
    });
    return { ok: false, error: 'invalid' };
  }
  const stage = firstStage(u);
  const s = await createSession(db, {
    userId: u.id,
    method: 'oidc',
    stage,
    ip: input.ip,
    userAgent: input.userAgent,
    now: input.now,
  });
  // Auth.js sets the cookie itself in the callback: the ticket is redeemed here, not through a second call.
  await db.update(adminSessions).set({ ticketHash: null }).where(eq(adminSessions.id, s.id));
  await audit(db, {
    actor: `admin:${u.id}`,
    action: 'admin.signed_in',
    data: { method: 'oidc', stage, ip: input.ip, session: s.id },
  });
  return { ok: true, stage, sessionId: s.id };
}

/**
 * Setting up and managing the second factor (TOTP with recovery codes) from the account page, and the
 * operator's reset. Turning it on signs the user's other browsers out; a reset signs them out everywhere.
 */
import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { adminRecoveryCodes, adminUsers } from '@/lib/db/schema';
import type { Db, DbOrTx } from '@/lib/db/client';
import { audit } from '../../audit/audit';
import { sha256Hex } from '../../../core/crypto/hash';
import { openWithKek, sealWithKek } from '../../../core/crypto/secretbox';
import { DomainError, notFound, validationError } from '../../../core/errors';
import { actorId, type Actor } from '../access';
import { normaliseRecoveryCode, totpAad, totpRequiredFor, redeemCode } from './sign-in';
import { revokeUserSessions, setSessionStage } from './sessions';
import { matchTotp, newTotpSecret, otpauthUri } from './totp';

export const RECOVERY_CODE_COUNT = 10;
export const TOTP_ISSUER = 'Open Verify';
const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

/** 10 characters of Crockford base32 (50 bits), shown as xxxxx-xxxxx. */
function recoveryCode(): string {
  const b = randomBytes(10);
  const s = Array.from(b, (x) => CROCKFORD[x & 31]).join('');
  return `${s.slice(0, 5)}-${s.slice(5)}`;
}

const wrongCode = () =>
  validationError(
    { code: ['Not right.'] },
    'That code is not right (or was already used). Try the newest one from your app.',
  );

/** Starts (or restarts) enrolment: a new secret, kept aside until a code from it confirms it. */
export async function beginTotpEnrolment(db: DbOrTx, actor: Actor): Promise<{ secret: string; uri: string }> {
  const secret = newTotpSecret();
  await db
    .update(adminUsers)
    .set({ totpPending: sealWithKek(secret, totpAad(actor.userId)), updatedAt: new Date() })
    .where(eq(adminUsers.id, actor.userId));
  return { secret, uri: otpauthUri(secret, actor.email, TOTP_ISSUER) };
}

/** The pending secret, to show again (a reload of the enrolment page). */
export async function pendingTotp(db: DbOrTx, actor: Actor): Promise<{ secret: string; uri: string } | null> {
  const [u] = await db.select({ p: adminUsers.totpPending }).from(adminUsers).where(eq(adminUsers.id, actor.userId));
  if (!u?.p) return null;
  const secret = openWithKek(u.p, totpAad(actor.userId)).toString();
  return { secret, uri: otpauthUri(secret, actor.email, TOTP_ISSUER) };
}

async function newRecoveryCodes(tx: DbOrTx, userId: string): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, recoveryCode);
  await tx.delete(adminRecoveryCodes).where(eq(adminRecoveryCodes.adminUserId, userId));
  await tx
    .insert(adminRecoveryCodes)
    .values(codes.map((c) => ({ adminUserId: userId, codeHash: sha256Hex(normaliseRecoveryCode(c)) })));
  return codes;
}

/** Confirms enrolment with a code from the app: TOTP is on, recovery codes are returned (shown once). */
export async function confirmTotpEnrolment(
  db: Db,
  actor: Actor,
  code: string,
  now = new Date(),
): Promise<{ recoveryCodes: string[] }> {
  return db.transaction(async (tx) => {
    const [u] = await tx.select().from(adminUsers).where(eq(adminUsers.id, actor.userId)).for('update');
    if (!u?.totpPending)
      throw new DomainError('INVALID_STATUS', 'Start the set-up again: there is no code to confirm.', {
        status: u?.totpSecret ? 'enabled' : 'none',
      });
    const secret = openWithKek(u.totpPending, totpAad(u.id)).toString();
    const step = matchTotp(secret, code, now, null);
    if (step === null) throw wrongCode();
    await tx
      .update(adminUsers)
      .set({ totpSecret: u.totpPending, totpPending: null, totpEnabledAt: now, totpLastStep: step, updatedAt: now })
      .where(eq(adminUsers.id, u.id));
    const recoveryCodes = await newRecoveryCodes(tx, u.id);
    await setSessionStage(tx, actor.sessionId, 'full');
    const ended = await revokeUserSessions(tx, u.id, 'second_factor_enabled', { except: actor.sessionId, now });
    await audit(tx, {
      actor: actorId(actor),
      action: 'admin.second_factor_enabled',
      data: { other_sessions_ended: ended },
    });
    return { recoveryCodes };
  });
}

/** New recovery codes (the old ones stop working), confirmed by a current code. */
export async function regenerateRecoveryCodes(
  db: Db,
  actor: Actor,
  code: string,
  now = new Date(),
): Promise<{ recoveryCodes: string[] }> {
  return db.transaction(async (tx) => {
    if ((await redeemCode(tx, actor.userId, code, now)) !== 'totp') throw wrongCode();
    const recoveryCodes = await newRecoveryCodes(tx, actor.userId);
    await audit(tx, { actor: actorId(actor), action: 'admin.recovery_codes_regenerated' });
    return { recoveryCodes };
  });
}

/** Turns TOTP off (confirmed by a code); refused when a second factor is required of this user. */
export async function disableTotp(db: Db, actor: Actor, code: string, now = new Date()): Promise<void> {
  await db.transaction(async (tx) => {
    const [u] = await tx.select().from(adminUsers).where(eq(adminUsers.id, actor.userId)).for('update');
    if (!u?.totpSecret)
      throw new DomainError('INVALID_STATUS', 'Two-factor authentication is not on.', { status: 'none' });
    if (totpRequiredFor(u))
      throw new DomainError(
        'INVALID_STATUS',
        'A second factor is required for your account; it cannot be turned off.',
        { status: 'required' },
      );
    if ((await redeemCode(tx, u.id, code, now)) !== 'totp') throw wrongCode();
    await tx
      .update(adminUsers)
      .set({ totpSecret: null, totpPending: null, totpEnabledAt: null, totpLastStep: null, updatedAt: now })
      .where(eq(adminUsers.id, u.id));
    await tx.delete(adminRecoveryCodes).where(eq(adminRecoveryCodes.adminUserId, u.id));
    const ended = await revokeUserSessions(tx, u.id, 'second_factor_disabled', { except: actor.sessionId, now });
    await audit(tx, {
      actor: actorId(actor),
      action: 'admin.second_factor_disabled',
      data: { other_sessions_ended: ended },
    });
  });
}

export async function recoveryCodesLeft(db: DbOrTx, userId: string): Promise<number> {
  return (
    await db
      .select({ h: adminRecoveryCodes.codeHash })
      .from(adminRecoveryCodes)
      .where(eq(adminRecoveryCodes.adminUserId, userId))
  ).length;
}

/** Operator's reset (`npm run ops -- admin:reset-2fa`): TOTP and recovery codes cleared, signed out everywhere. */
export async function resetSecondFactor(db: Db, input: { email: string; actor: string }) {
  return db.transaction(async (tx) => {
    const [u] = await tx.select().from(adminUsers).where(eq(adminUsers.email, input.email.trim().toLowerCase()));
    if (!u) throw notFound('Admin');
    await tx
      .update(adminUsers)
      .set({ totpSecret: null, totpPending: null, totpEnabledAt: null, totpLastStep: null, updatedAt: new Date() })
      .where(eq(adminUsers.id, u.id));
    await tx.delete(adminRecoveryCodes).where(eq(adminRecoveryCodes.adminUserId, u.id));
    const ended = await revokeUserSessions(tx, u.id, 'second_factor_reset');
    await audit(tx, {
      actor: input.actor,
      action: 'admin.second_factor_reset',
      data: { admin: u.id, email: u.email, sessions_ended: ended },
    });
    return { id: u.id, email: u.email, sessions_ended: ended, totp_required: totpRequiredFor(u) };
  });
}

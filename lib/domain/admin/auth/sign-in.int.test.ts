/**
 * Signing in without a browser: the password step (the same answer for an unknown email and a wrong
 * password, throttled per account and per address), the second factor (TOTP once per code, recovery
 * codes once each), sessions that end after inactivity and when access changes.
 */
import { describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { adminSessions, adminUsers } from '@/lib/db/schema';
import { makeWorkspace } from '@/test/helpers/factories';
import { ADMIN_PASSWORD, makeAdmin } from '@/test/helpers/admin-factories';
import { resetEnvCache } from '../../../core/env';
import { setAdminPassword, setMembership, setOperator, signOutEverywhere } from '../users';
import { passwordStep, secondFactorStep, ssoStep } from './sign-in';
import { loadSession, redeemTicket } from './sessions';
import { beginTotpEnrolment, confirmTotpEnrolment, disableTotp, resetSecondFactor } from './two-factor';
import { THROTTLE } from './throttle';
import { totpAt } from './totp';

const client = (ip = `198.51.100.${Math.floor(Math.random() * 250)}`) => ({ ip, userAgent: 'vitest', now: new Date() });
const at = (ms: number) => new Date(Date.now() + ms);

describe('password step and throttle', () => {
  it('an unknown email and a wrong password get the same answer, and both lock the account key alike', async () => {
    const admin = await makeAdmin();
    const ip = '203.0.113.9';
    const answers = async (email: string, password: string) => {
      const out = [];
      for (let i = 0; i <= THROTTLE.account.maxFailures; i++)
        out.push((await passwordStep(getDb(), { email, password, ...client(ip) })) as { ok: boolean; error?: string });
      return out.map((r) => (r.ok ? 'ok' : r.error));
    };
    const known = await answers(admin.email, 'wrong password!!');
    const unknown = await answers(`nobody-${Date.now()}@example.com`, 'wrong password!!');
    expect(known).toEqual(unknown);
    expect(known).toEqual([...Array(THROTTLE.account.maxFailures - 1).fill('invalid'), 'throttled', 'throttled']);
    // Locked: even the right password is refused now, before it is checked.
    expect(await passwordStep(getDb(), { email: admin.email, password: ADMIN_PASSWORD, ...client() })).toMatchObject({
      ok: false,
      error: 'throttled',
    });
    // After the lock, the right password works and clears the count.
    const later = { ...client(), now: at(THROTTLE.account.lockSeconds * 1000 + 1000) };
    expect(await passwordStep(getDb(), { email: admin.email, password: ADMIN_PASSWORD, ...later })).toMatchObject({
      ok: true,
      stage: 'full',
    });
  });

  it('one address trying many accounts is locked out after the address limit', async () => {
    const ip = `192.0.2.${Math.floor(Math.random() * 250)}`;
    const admin = await makeAdmin();
    for (let i = 0; i < THROTTLE.address.maxFailures; i++)
      await passwordStep(getDb(), {
        email: `spray-${i}-${Date.now()}@example.com`,
        password: 'guess guess guess',
        ...client(ip),
      });
    expect(await passwordStep(getDb(), { email: admin.email, password: ADMIN_PASSWORD, ...client(ip) })).toMatchObject({
      ok: false,
      error: 'throttled',
    });
    expect(await passwordStep(getDb(), { email: admin.email, password: ADMIN_PASSWORD, ...client() })).toMatchObject({
      ok: true,
    });
  });

  it('malformed input is a refusal, not a crash', async () => {
    expect(await passwordStep(getDb(), { email: { $ne: 1 }, password: undefined, ...client() })).toMatchObject({
      ok: false,
      error: 'invalid',
    });
    expect(await passwordStep(getDb(), { email: 'a@b.c', password: 'x'.repeat(10_000), ...client() })).toMatchObject({
      ok: false,
      error: 'invalid',
    });
  });

  it('a ticket hands its session over once, within a minute', async () => {
    const admin = await makeAdmin();
    const r = await passwordStep(getDb(), { email: admin.email, password: ADMIN_PASSWORD, ...client() });
    if (!r.ok || !r.ticket) throw new Error('sign-in failed');
    expect(await redeemTicket(getDb(), r.ticket, at(61_000))).toBeNull();
    expect(await redeemTicket(getDb(), r.ticket, new Date())).toEqual({ sessionId: r.sessionId, userId: admin.userId });
    expect(await redeemTicket(getDb(), r.ticket, new Date())).toBeNull();
  });
});

describe('sessions', () => {
  it('end after inactivity and after the absolute limit', async () => {
    const admin = await makeAdmin();
    expect(await loadSession(getDb(), admin.sessionId, at(20 * 60_000))).not.toBeNull();
    // Seen at +20 min, so still alive at +45 min (idle 25 min < 30), then idle past 30 min: ended, and stays ended.
    expect(await loadSession(getDb(), admin.sessionId, at(45 * 60_000))).not.toBeNull();
    expect(await loadSession(getDb(), admin.sessionId, at(76 * 60_000))).toBeNull();
    expect(await loadSession(getDb(), admin.sessionId, at(46 * 60_000))).toBeNull();
    const [row] = await getDb().select().from(adminSessions).where(eq(adminSessions.id, admin.sessionId));
    expect(row.revokedReason).toBe('idle');
    const other = await makeAdmin();
    expect(await loadSession(getDb(), other.sessionId, at(12 * 3_600_000 + 1000))).toBeNull();
  });

  it('a password, operator role or membership change signs the user out everywhere', async () => {
    const ws = (await makeWorkspace()).workspace.id;
    const changes: [string, (email: string) => Promise<unknown>][] = [
      [
        'password',
        (email) => setAdminPassword(getDb(), { email, password: 'another long password', actor: 'operator' }),
      ],
      ['operator', (email) => setOperator(getDb(), { email, operator: true, actor: 'operator' })],
      ['membership', (email) => setMembership(getDb(), { email, workspaceId: ws, role: 'owner', actor: 'operator' })],
      ['sign out everywhere', (email) => signOutEverywhere(getDb(), { email, actor: 'operator' })],
    ];
    for (const [what, change] of changes) {
      const admin = await makeAdmin({ workspaces: [[ws, 'reviewer']] });
      expect(await loadSession(getDb(), admin.sessionId, new Date()), what).not.toBeNull();
      await change(admin.email);
      expect(await loadSession(getDb(), admin.sessionId, new Date()), what).toBeNull();
    }
  });
});

describe('second factor', () => {
  it('enrolment, then sign-in with a TOTP code (never the same code twice) or a recovery code (each once)', async () => {
    const admin = await makeAdmin();
    const { secret, uri } = await beginTotpEnrolment(getDb(), admin);
    expect(uri).toContain(`secret=${secret}`);
    await expect(confirmTotpEnrolment(getDb(), admin, '000000')).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    const { recoveryCodes } = await confirmTotpEnrolment(getDb(), admin, totpAt(secret, new Date()));
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);

    const signIn = async (now = new Date()) => {
      const r = await passwordStep(getDb(), { email: admin.email, password: ADMIN_PASSWORD, ...client(), now });
      if (!r.ok || !r.ticket) throw new Error('password step failed');
      await redeemTicket(getDb(), r.ticket, now);
      return r;
    };
    const first = await signIn();
    expect(first.stage).toBe('second_factor');
    // Until the code, the session is not a full one.
    expect((await loadSession(getDb(), first.sessionId, new Date()))?.stage).toBe('second_factor');
    const soon = at(35_000);
    const code = totpAt(secret, soon);
    expect(await secondFactorStep(getDb(), { sessionId: first.sessionId, code, ...client(), now: soon })).toMatchObject(
      { ok: true, stage: 'full' },
    );
    const second = await signIn(soon);
    expect(
      await secondFactorStep(getDb(), { sessionId: second.sessionId, code, ...client(), now: soon }),
    ).toMatchObject({ ok: false, error: 'invalid' });
    const upper = recoveryCodes[0].toUpperCase().replace('-', ' ');
    expect(
      await secondFactorStep(getDb(), { sessionId: second.sessionId, code: upper, ...client(), now: soon }),
    ).toMatchObject({ ok: true });
    const third = await signIn(soon);
    expect(
      await secondFactorStep(getDb(), { sessionId: third.sessionId, code: recoveryCodes[0], ...client(), now: soon }),
    ).toMatchObject({ ok: false });
  });

  it('required of a user (or of all): the first session can only enrol; an operator reset clears it and signs out', async () => {
    const admin = await makeAdmin();
    await getDb().update(adminUsers).set({ totpRequired: true }).where(eq(adminUsers.id, admin.userId));
    const r = await passwordStep(getDb(), { email: admin.email, password: ADMIN_PASSWORD, ...client() });
    expect(r).toMatchObject({ ok: true, stage: 'enrol' });
    await redeemTicket(getDb(), (r as { ticket: string }).ticket, new Date());
    const loaded = await loadSession(getDb(), (r as { sessionId: string }).sessionId, new Date());
    const actor = loaded!.actor;
    const { secret } = await beginTotpEnrolment(getDb(), actor);
    await confirmTotpEnrolment(getDb(), actor, totpAt(secret, new Date()));
    expect((await loadSession(getDb(), actor.sessionId, new Date()))?.stage).toBe('full');
    await expect(disableTotp(getDb(), actor, totpAt(secret, at(30_000)), at(30_000))).rejects.toMatchObject({
      code: 'INVALID_STATUS',
    });
    await resetSecondFactor(getDb(), { email: admin.email, actor: 'operator' });
    expect(await loadSession(getDb(), actor.sessionId, new Date())).toBeNull();
    expect(await passwordStep(getDb(), { email: admin.email, password: ADMIN_PASSWORD, ...client() })).toMatchObject({
      ok: true,
      stage: 'enrol',
    });

    process.env.ADMIN_REQUIRE_TOTP = '1';
    resetEnvCache();
    try {
      const plain = await makeAdmin();
      expect(await passwordStep(getDb(), { email: plain.email, password: ADMIN_PASSWORD, ...client() })).toMatchObject({
        ok: true,
        stage: 'enrol',
      });
    } finally {
      delete process.env.ADMIN_REQUIRE_TOTP;
      resetEnvCache();
    }
  });

  it('single sign-on admits existing admins by verified email only', async () => {
    const admin = await makeAdmin();
    expect(
      await ssoStep(getDb(), { email: admin.email.toUpperCase(), emailVerified: true, ...client() }),
    ).toMatchObject({ ok: true, stage: 'full' });
    expect(await ssoStep(getDb(), { email: admin.email, emailVerified: false, ...client() })).toMatchObject({
      ok: false,
    });
    expect(await ssoStep(getDb(), { email: 'stranger@example.com', emailVerified: true, ...client() })).toMatchObject({
      ok: false,
    });
  });
});

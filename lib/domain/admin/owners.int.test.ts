/**
 * Owners run their workspace (issue 15), in lib/domain/admin: keys (the active one cannot be deleted, last use
 * recorded at most once a minute), settings audited before and after, the delivery log and redelivery, a test
 * event signed like a real one, invitations (mailed through a real local SMTP server), the last owner kept,
 * usage counts; reviewers and strangers refused as NOT_FOUND everywhere.
 */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq, sql } from 'drizzle-orm';
import { SMTPServer } from 'smtp-server';
import { getDb } from '@/lib/db/client';
import { auditLog, secretKeys, verifications, webhookAttempts, webhookEvents } from '@/lib/db/schema';
import { makeWorkspace } from '@/test/helpers/factories';
import { makeAdmin, makeReviewCase } from '@/test/helpers/admin-factories';
import { selfSignedCert, startReceiver } from '@/test/helpers/https-receiver';
import { call } from '@/test/helpers/http';
import { POST as create } from '@/app/v1/verifications/route';
import { resetEnvCache } from '../../core/env';
import { newId } from '../../core/ids';
import { loadSession } from './auth/sessions';
import { KEY_USE_RECORD_MS, recordKeyUse, resetKeyUseMemory } from '../auth/keys';
import {
  activateKeyAs,
  createKeyAs,
  deleteKeyAs,
  keysFor,
  listManagedWorkspaces,
  createWorkspaceAs,
  settingsFor,
  updateSettingsAs,
} from './workspaces';
import { deliveryLog, redeliverAllFailedAs, redeliverAs, sendTestEventAs } from './webhooks';
import { acceptInvite, changeRoleAs, inviteMember, membersFor, openInvite, removeMemberAs } from './members';
import { usageCsv, usageFor } from './usage';
import { consentHistory, publishConsentAs } from './consent';

const code = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e) => e.code as string,
  );

describe('owners run their workspace', () => {
  it('reviewers and strangers get NOT_FOUND on every owner read and write; operators may', async () => {
    const ws = (await makeWorkspace()).workspace.id;
    const other = (await makeWorkspace()).workspace.id;
    const reviewer = await makeAdmin({ workspaces: [[ws, 'reviewer']] });
    const stranger = await makeAdmin({ workspaces: [[other, 'owner']] });
    const operator = await makeAdmin({ operator: true });
    const db = getDb();
    for (const who of [reviewer, stranger]) {
      expect(await code(keysFor(db, who, ws))).toBe('NOT_FOUND');
      expect(await code(createKeyAs(db, who, { workspaceId: ws, mode: 'test' }))).toBe('NOT_FOUND');
      expect(await code(settingsFor(db, who, ws))).toBe('NOT_FOUND');
      expect(await code(updateSettingsAs(db, who, ws, { age_threshold: 30 }))).toBe('NOT_FOUND');
      expect(await code(deliveryLog(db, who, { workspaceId: ws }))).toBe('NOT_FOUND');
      expect(await code(membersFor(db, who, ws))).toBe('NOT_FOUND');
      expect(await code(inviteMember(db, who, { workspaceId: ws, email: 'x@example.com', role: 'owner' }))).toBe(
        'NOT_FOUND',
      );
      expect(await code(usageFor(db, who, ws))).toBe('NOT_FOUND');
      expect(await code(createWorkspaceAs(db, who, { name: 'nope' }))).toBe('NOT_FOUND');
      expect(await code(consentHistory(db, who))).toBe('NOT_FOUND');
    }
    expect((await listManagedWorkspaces(db, reviewer)).map((w) => w.id)).toEqual([]);
    expect(await code(keysFor(db, operator, ws))).toBe('ok');
    const made = await createWorkspaceAs(db, operator, { name: 'made by an operator' });
    expect(made.secretKeys.map((k) => k.mode)).toEqual(['test', 'live']);
    const [entry] = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.workspaceId, made.workspace.id), eq(auditLog.action, 'workspace.created')));
    expect(entry.actor).toBe(`admin:${operator.userId}`);
  });

  it('keys: create (secret once), activate, delete; the active key is refused; at most 5', async () => {
    const w = await makeWorkspace();
    const owner = await makeAdmin({ workspaces: [[w.workspace.id, 'owner']] });
    const db = getDb();
    const k = await createKeyAs(db, owner, { workspaceId: w.workspace.id, mode: 'live' });
    expect(k.secret).toMatch(/^sk_live_[A-Za-z0-9]{56}$/);
    const listed = await keysFor(db, owner, w.workspace.id);
    expect(JSON.stringify(listed)).not.toContain(k.secret);
    expect(listed.keys.find((x) => x.active)?.id).toBe(w.liveKeyId);
    expect(await code(deleteKeyAs(db, owner, w.liveKeyId))).toBe('KEY_ACTIVE');
    await activateKeyAs(db, owner, k.id);
    await deleteKeyAs(db, owner, w.liveKeyId);
    expect((await keysFor(db, owner, w.workspace.id)).keys.map((x) => [x.id, x.active])).toEqual([
      [w.testKeyId, false],
      [k.id, true],
    ]);
    for (let i = 0; i < 3; i++) await createKeyAs(db, owner, { workspaceId: w.workspace.id, mode: 'test' });
    expect(await code(createKeyAs(db, owner, { workspaceId: w.workspace.id, mode: 'test' }))).toBe('KEY_LIMIT_REACHED');
    const actions = (await db.select().from(auditLog).where(eq(auditLog.workspaceId, w.workspace.id))).map(
      (a) => a.action,
    );
    expect(actions).toEqual(expect.arrayContaining(['key.created', 'key.activated', 'key.deleted']));
  });

  it('last use: the auth path records it, at most once a minute per key', async () => {
    const w = await makeWorkspace();
    resetKeyUseMemory();
    const lastUsed = async () =>
      (await getDb().select({ at: secretKeys.lastUsedAt }).from(secretKeys).where(eq(secretKeys.id, w.testKeyId)))[0]
        .at;
    expect(await lastUsed()).toBeNull();
    const r = await call(create, {
      method: 'POST',
      path: '/v1/verifications',
      body: {},
      apiKey: w.apiKey,
      secret: w.testSecret,
    });
    expect(r.status).toBe(201);
    await expect.poll(lastUsed).not.toBeNull();
    const first = (await lastUsed())!;
    // Within the minute: no write (neither from memory nor, on another server, from the conditional update).
    await recordKeyUse(getDb(), w.testKeyId, new Date(first.getTime() + 30_000));
    expect((await lastUsed())!.getTime()).toBe(first.getTime());
    resetKeyUseMemory();
    await recordKeyUse(getDb(), w.testKeyId, new Date(first.getTime() + 30_000));
    expect((await lastUsed())!.getTime()).toBe(first.getTime());
    resetKeyUseMemory();
    await recordKeyUse(getDb(), w.testKeyId, new Date(first.getTime() + KEY_USE_RECORD_MS + 1000));
    expect((await lastUsed())!.getTime()).toBe(first.getTime() + KEY_USE_RECORD_MS + 1000);
  });

  it('settings: the CLI schema, each change audited with before and after; invalid values refused', async () => {
    const w = await makeWorkspace();
    const owner = await makeAdmin({ workspaces: [[w.workspace.id, 'owner']] });
    const s = await updateSettingsAs(getDb(), owner, w.workspace.id, {
      rate_limit_per_minute: 7,
      age_threshold: 18,
      duplicate_threshold: 0.945,
    });
    expect(s.rate_limit_per_minute).toBe(7);
    const [e] = await getDb()
      .select()
      .from(auditLog)
      .where(
        and(
          eq(auditLog.workspaceId, w.workspace.id),
          eq(auditLog.action, 'workspace.settings_updated'),
          eq(auditLog.actor, `admin:${owner.userId}`),
        ),
      );
    // Only what changed (18 and 0.945 are the defaults).
    expect((e.data as { changes: unknown }).changes).toEqual({ rate_limit_per_minute: { before: 60, after: 7 } });
    expect(
      await code(updateSettingsAs(getDb(), owner, w.workspace.id, { webhook_url: 'http://plain.example.com/' })),
    ).toBe('VALIDATION_ERROR');
    expect(await code(updateSettingsAs(getDb(), owner, w.workspace.id, { webhook_url: 'https://127.0.0.1/x' }))).toBe(
      'VALIDATION_ERROR',
    );
    expect(await code(updateSettingsAs(getDb(), owner, w.workspace.id, { media_retention_days: 400 }))).toBe(
      'VALIDATION_ERROR',
    );
  });

  describe('webhooks', () => {
    const tls = selfSignedCert();
    let receiver: Awaited<ReturnType<typeof startReceiver>>;
    beforeAll(async () => {
      receiver = await startReceiver(tls, [{ status: 200 }]);
    });
    afterAll(() => receiver.close());

    it('a test event: signed with the active key like a real one, marked X-Webhook-Test', async () => {
      const w = await makeWorkspace();
      const owner = await makeAdmin({ workspaces: [[w.workspace.id, 'owner']] });
      await getDb()
        .update((await import('@/lib/db/schema')).workspaces)
        .set({ webhookUrl: receiver.url })
        .where(eq((await import('@/lib/db/schema')).workspaces.id, w.workspace.id));
      const r = await sendTestEventAs(getDb(), owner, w.workspace.id, { ca: tls.cert, allowPrivate: true });
      expect([r.outcome, r.statusCode]).toEqual(['delivered', 200]);
      const got = receiver.received.find((x) => x.headers['x-webhook-id'] === r.id)!;
      expect(got.headers['x-webhook-test']).toBe('true');
      expect(got.headers['x-hmac-signature']).toBe(
        createHmac('sha256', w.liveSecret).update(`${got.headers['x-timestamp']}.${got.body}`).digest('hex'),
      );
      expect(JSON.parse(got.body)).toMatchObject({ status: 'approved', external_id: 'open-verify-test-event' });
    });

    it('the delivery log shows each attempt, filters to failures, and redelivers one or all', async () => {
      const w = await makeWorkspace();
      const ws = w.workspace.id;
      const owner = await makeAdmin({ workspaces: [[ws, 'owner']] });
      const db = getDb();
      const cases = [await makeReviewCase(ws, 'live'), await makeReviewCase(ws, 'live')];
      const ids: string[] = [];
      for (const [i, c] of cases.entries()) {
        const id = newId('evt');
        ids.push(id);
        await db.insert(webhookEvents).values({
          id,
          workspaceId: ws,
          verificationId: c.id,
          status: 'review',
          body: '{}',
          state: i === 0 ? 'failed' : 'delivered',
          attempts: 1,
          nextAttemptAt: new Date(Date.now() + 3_600_000),
        });
        await db.insert(webhookAttempts).values({
          id: newId('wat'),
          eventId: id,
          attempt: 1,
          url: 'https://x.example/',
          startedAt: new Date(),
          latencyMs: 12,
          statusCode: i === 0 ? 500 : 200,
          responseBody: i === 0 ? 'boom '.repeat(100) : 'ok',
          outcome: i === 0 ? 'failed' : 'delivered',
        });
      }
      const all = await deliveryLog(db, owner, { workspaceId: ws });
      expect(all.events.map((e) => e.id)).toEqual([...ids].reverse());
      const failed = await deliveryLog(db, owner, { workspaceId: ws, failedOnly: true });
      expect(failed.events.map((e) => e.id)).toEqual([ids[0]]);
      expect(failed.events[0].attemptLog[0]).toMatchObject({ statusCode: 500, latencyMs: 12, outcome: 'failed' });
      expect(failed.events[0].attemptLog[0].responseExcerpt!.length).toBe(300);
      // Paging by cursor: one at a time.
      const p1 = await deliveryLog(db, owner, { workspaceId: ws, limit: 1 });
      const p2 = await deliveryLog(db, owner, { workspaceId: ws, limit: 1, cursor: p1.next });
      expect([p1.events[0].id, p2.events[0].id, p2.next]).toEqual([ids[1], ids[0], null]);
      expect(await redeliverAllFailedAs(db, owner, ws)).toBe(1);
      const [again] = await db.select().from(webhookEvents).where(eq(webhookEvents.id, ids[0]));
      expect([again.state, again.attempts]).toEqual(['pending', 0]);
      await redeliverAs(db, owner, ids[1]);
      const reviewer = await makeAdmin({ workspaces: [[ws, 'reviewer']] });
      expect(await code(redeliverAs(db, reviewer, ids[1]))).toBe('NOT_FOUND');
    });
  });

  describe('members and invitations', () => {
    let smtp: SMTPServer;
    const mails: { to: string; text: string }[] = [];
    beforeAll(async () => {
      smtp = new SMTPServer({
        authOptional: true,
        disabledCommands: ['STARTTLS'],
        onData(stream, session, cb) {
          let text = '';
          stream.on('data', (d) => (text += d));
          stream.on('end', () => {
            mails.push({ to: session.envelope.rcptTo.map((r) => r.address).join(','), text });
            cb();
          });
        },
      });
      await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', () => r()));
      process.env.SMTP_URL = `smtp://127.0.0.1:${(smtp.server.address() as { port: number }).port}`;
      resetEnvCache();
    });
    afterAll(async () => {
      delete process.env.SMTP_URL;
      resetEnvCache();
      await new Promise<void>((r) => smtp.close(() => r()));
    });

    it('an invitation is mailed, works once, and makes a member; roles change; the last owner stays; removal signs out', async () => {
      const ws = (await makeWorkspace()).workspace.id;
      const owner = await makeAdmin({ workspaces: [[ws, 'owner']] });
      const db = getDb();
      const email = `inv-${Math.random().toString(36).slice(2, 8)}@example.com`;
      const inv = await inviteMember(db, owner, { workspaceId: ws, email: email.toUpperCase(), role: 'reviewer' });
      expect(inv.emailed).toEqual({ sent: true });
      expect(inv.email).toBe(email);
      const mail = mails.find((m) => m.to === email)!;
      const token = inv.link.split('/').pop()!;
      // Quoted-printable may wrap the link: undo soft line breaks before looking for it.
      expect(mail.text.replace(/=\r?\n/g, '')).toContain(token);
      expect(await openInvite(db, token)).toMatchObject({ email, role: 'reviewer', existingAccount: false });
      const joined = await acceptInvite(db, { token, password: 'a long enough password' });
      expect(await openInvite(db, token)).toBeNull();
      expect(await code(acceptInvite(db, { token, password: 'a long enough password' }))).toBe('NOT_FOUND');
      const m = await membersFor(db, owner, ws);
      expect(m.members.map((x) => [x.email, x.role]).sort()).toEqual(
        [
          [owner.email, 'owner'],
          [email, 'reviewer'],
        ].sort(),
      );
      expect(m.invites).toEqual([]);

      // The last owner can be neither demoted nor removed (through lib, hence the CLI too).
      expect(
        await code(changeRoleAs(db, owner, { workspaceId: ws, adminUserId: owner.userId, role: 'reviewer' })),
      ).toBe('LAST_OWNER');
      expect(await code(removeMemberAs(db, owner, { workspaceId: ws, adminUserId: owner.userId }))).toBe('LAST_OWNER');
      await changeRoleAs(db, owner, { workspaceId: ws, adminUserId: joined.userId, role: 'owner' });
      // Now the first owner may step down (their own sessions end too).
      await changeRoleAs(db, owner, { workspaceId: ws, adminUserId: owner.userId, role: 'reviewer' });
      expect(await loadSession(db, owner.sessionId, new Date())).toBeNull();
      const operator = await makeAdmin({ operator: true });
      const boss0 = () => operator;

      // Someone with an account already (a reviewer elsewhere) joins with it: the invite page checks their password first.
      const elsewhere = await makeAdmin({ workspaces: [[(await makeWorkspace()).workspace.id, 'reviewer']] });
      const inv2 = await inviteMember(db, await makeAdmin({ operator: true }), {
        workspaceId: ws,
        email: elsewhere.email,
        role: 'owner',
      });
      const token2 = inv2.link.split('/').pop()!;
      expect(await openInvite(db, token2)).toMatchObject({ existingAccount: true });
      expect(await code(acceptInvite(db, { token: token2 }))).toBe('VALIDATION_ERROR');
      expect(await openInvite(db, token2)).not.toBeNull();
      await acceptInvite(db, { token: token2, existingUserId: elsewhere.userId });
      expect((await membersFor(db, boss0(), ws)).members.find((x) => x.email === elsewhere.email)?.role).toBe('owner');

      // Removal ends every session of the removed member.
      const rev = await makeAdmin({ workspaces: [[ws, 'reviewer']] });
      const boss = await makeAdmin({ workspaces: [[ws, 'owner']] });
      await removeMemberAs(db, boss, { workspaceId: ws, adminUserId: rev.userId });
      expect(await loadSession(db, rev.sessionId, new Date())).toBeNull();
    });
  });

  it('usage: counts per day by mode, decisions by status and reason, approval rate, median time; CSV', async () => {
    const ws = (await makeWorkspace()).workspace.id;
    const owner = await makeAdmin({ workspaces: [[ws, 'owner']] });
    const db = getDb();
    const now = new Date('2026-11-20T12:00:00.000Z');
    const at = (daysAgo: number, min = 0) => new Date(now.getTime() - daysAgo * 86_400_000 + min * 60_000);
    const rows: [string, 'live' | 'test', string | null, Date, number][] = [
      ['approved', 'live', null, at(0, -60), 2],
      ['approved', 'live', null, at(1), 4],
      ['declined', 'live', 'fraud_detected', at(1), 6],
      ['review', 'test', null, at(2), 0],
      ['approved', 'live', null, at(40), 1],
    ];
    for (const [status, mode, reason, created, mins] of rows) {
      const c = await makeReviewCase(ws, mode, { status: status as 'approved' });
      const done = status === 'review' ? null : new Date(created.getTime() + (mins + 1) * 60_000);
      await db
        .update(verifications)
        .set({ createdAt: created, submittedAt: new Date(created.getTime() + 60_000), completedAt: done, reason })
        .where(eq(verifications.id, c.id));
    }
    const u = await usageFor(db, owner, ws, { days: 30, now });
    expect(u.perDay).toHaveLength(30);
    expect(u.perDay[29]).toEqual({ day: '2026-11-20', live: 1, test: 0 });
    expect(u.perDay[28]).toEqual({ day: '2026-11-19', live: 2, test: 0 });
    expect(u.perDay[27]).toEqual({ day: '2026-11-18', live: 0, test: 1 });
    expect([u.totals.live, u.totals.test, u.totals.approved, u.totals.declined]).toEqual([3, 1, 2, 1]);
    expect(u.totals.approvalRate).toBeCloseTo(2 / 3);
    expect(u.totals.medianDecisionMs).toBe(4 * 60_000);
    expect(u.decisions).toEqual([
      { mode: 'live', status: 'approved', reason: null, count: 2 },
      { mode: 'live', status: 'declined', reason: 'fraud_detected', count: 1 },
    ]);
    expect(u.perMonth.find((m) => m.month === '2026-10')).toEqual({ month: '2026-10', live: 1, test: 0 });
    const csv = usageCsv(u);
    expect(csv).toContain('per_day,2026-11-19,live,,,2\r\n');
    expect(csv).toContain('decisions,2026-10-22..2026-11-20,live,declined,fraud_detected,1\r\n');
  });

  it('consent: operators see the history and publish a new active version, audited with the admin', async () => {
    const operator = await makeAdmin({ operator: true });
    const v = await publishConsentAs(getDb(), operator, { text: 'I agree. ✓\n', version: `admin-${Date.now()}` });
    const h = await consentHistory(getDb(), operator);
    expect(h[0]).toMatchObject({ id: v.id, isActive: true });
    expect(h.filter((x) => x.isActive)).toHaveLength(1);
    const [e] = await getDb()
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'consent.published'), sql`${auditLog.data}->>'id' = ${String(v.id)}`));
    expect(e.actor).toBe(`admin:${operator.userId}`);
  });
});

/**
 * The review queue's order and pages, the search's keyset pages, and decisions: through the same
 * operation as the CLI (the webhook event is written once), a note in the audit log, and two reviewers
 * racing on one case: one wins, the other is told who decided what.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { auditLog, verifications, webhookEvents } from '@/lib/db/schema';
import { makeWorkspace } from '@/test/helpers/factories';
import { makeAdmin, makeReviewCase, statusOf } from '@/test/helpers/admin-factories';
import { DomainError } from '../../core/errors';
import { decodeCursor } from './cursor';
import { decideCase } from './decide';
import { loadCase } from './case';
import { reviewQueue } from './queue';
import { searchVerifications } from './search';
import { openAuditEntries } from '../personal-data/personal';

describe('review queue and search', () => {
  it('oldest first by time in review, paged by cursor without skipping rows of the same millisecond', async () => {
    const ws = (await makeWorkspace()).workspace.id;
    const reviewer = await makeAdmin({ workspaces: [[ws, 'reviewer']] });
    const t0 = new Date(Date.now() - 3_600_000);
    const ids: string[] = [];
    for (let i = 0; i < 7; i++)
      ids.push((await makeReviewCase(ws, 'live', { inReviewSince: new Date(t0.getTime() + (i % 3) * 1000) })).id);
    // Two rows microseconds apart within one millisecond: a millisecond cursor would lose one of them.
    await getDb().execute(
      sql`update ${verifications} set status_changed_at = status_changed_at + interval '300 microseconds' where id = ${ids[6]}`,
    );
    const seen: string[] = [];
    let after = null;
    for (let page = 0; page < 10; page++) {
      const q = await reviewQueue(getDb(), reviewer, { mode: 'live', limit: 2, after });
      seen.push(...q.items.map((i) => i.id));
      if (!q.next) break;
      after = decodeCursor(q.next);
    }
    const expected = [...ids].sort((x, y) => {
      const tx = ids.indexOf(x) % 3;
      const ty = ids.indexOf(y) % 3;
      return tx - ty || (x === ids[6] ? 1 : y === ids[6] ? -1 : x.localeCompare(y));
    });
    expect(seen).toEqual(expected);
    expect((await reviewQueue(getDb(), reviewer, { mode: 'test' })).items).toEqual([]);
  });

  it('search pages through every match exactly once, newest first, and filters by status, mode and date', async () => {
    const ws = (await makeWorkspace()).workspace.id;
    const owner = await makeAdmin({ workspaces: [[ws, 'owner']] });
    const made: string[] = [];
    for (let i = 0; i < 9; i++)
      made.push((await makeReviewCase(ws, i % 2 ? 'test' : 'live', { status: i % 3 ? 'review' : 'approved' })).id);
    await getDb()
      .update(verifications)
      .set({ createdAt: new Date('2026-01-01T00:00:00.000Z') })
      .where(eq(verifications.workspaceId, ws));
    const all: string[] = [];
    let cursor: string | undefined;
    do {
      const r = await searchVerifications(getDb(), owner, { workspace: ws, cursor }, 4);
      all.push(...r.items.map((i) => i.id));
      cursor = r.next ?? undefined;
    } while (cursor);
    expect(all).toEqual([...made].sort().reverse());
    const approved = await searchVerifications(getDb(), owner, { workspace: ws, status: 'approved', mode: 'live' });
    expect(approved.items.map((i) => i.id).sort()).toEqual([made[0], made[6]].sort());
    expect((await searchVerifications(getDb(), owner, { workspace: ws, from: '2026-01-02' })).items).toEqual([]);
    expect(
      (await searchVerifications(getDb(), owner, { workspace: ws, from: '2026-01-01', to: '2026-01-01' })).items,
    ).toHaveLength(9);
    await expect(searchVerifications(getDb(), owner, { from: '01/02/2026' })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
    });
    await expect(searchVerifications(getDb(), owner, { status: 'nonsense' })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
    });
  });
});

describe('decisions', () => {
  let ws: string;
  beforeAll(async () => {
    ws = (await makeWorkspace()).workspace.id;
  });

  it('approve writes one webhook event and keeps the note in the audit log', async () => {
    const reviewer = await makeAdmin({ workspaces: [[ws, 'reviewer']] });
    const c = await makeReviewCase(ws, 'test');
    const row = await decideCase(getDb(), reviewer, {
      verificationId: c.id,
      decision: { status: 'approved', note: 'Face and document agree.' },
    });
    expect(row.status).toBe('approved');
    const events = await getDb().select().from(webhookEvents).where(eq(webhookEvents.verificationId, c.id));
    expect(events.map((e) => e.status)).toEqual(['approved']);
    const [entry] = await getDb().select().from(auditLog).where(eq(auditLog.verificationId, c.id));
    // The note is about the person: stored under the case's data key, not in the clear (lib/domain/audit/audit.ts).
    expect(entry.data).toEqual({ status: 'approved', reason: null });
    expect(entry.dataSealed?.toString('latin1')).not.toContain('Face and document');
    const [opened] = await openAuditEntries(getDb(), [entry]);
    expect(opened).toMatchObject({
      actor: `admin:${reviewer.userId}`,
      action: 'verification.decided',
      data: { status: 'approved', reason: null, note: 'Face and document agree.' },
    });
  });

  it('decline needs a reason from the table; resubmission is for test mode only', async () => {
    const reviewer = await makeAdmin({ workspaces: [[ws, 'reviewer']] });
    const live = await makeReviewCase(ws, 'live');
    await expect(
      decideCase(getDb(), reviewer, { verificationId: live.id, decision: { status: 'declined' } }),
    ).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(
      decideCase(getDb(), reviewer, { verificationId: live.id, decision: { status: 'declined', reason: 'made_up' } }),
    ).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(
      decideCase(getDb(), reviewer, {
        verificationId: live.id,
        decision: { status: 'resubmission_requested', reason: 'selfie_quality' },
      }),
    ).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await decideCase(getDb(), reviewer, {
      verificationId: live.id,
      decision: { status: 'declined', reason: 'age_below_threshold' },
    });
    expect(await statusOf(live.id)).toEqual({ status: 'declined', reason: 'age_below_threshold' });
    const test = await makeReviewCase(ws, 'test');
    await decideCase(getDb(), reviewer, {
      verificationId: test.id,
      decision: { status: 'resubmission_requested', reason: 'document_quality' },
    });
    expect(await statusOf(test.id)).toEqual({ status: 'resubmission_requested', reason: 'document_quality' });
    const expired = await makeReviewCase(ws, 'live');
    await decideCase(getDb(), reviewer, {
      verificationId: expired.id,
      decision: { status: 'declined', reason: 'document_expired' },
    });
    expect(await statusOf(expired.id)).toEqual({ status: 'declined', reason: 'document_expired' });
  });

  it('two reviewers at once: one decision lands, the other is told who decided what; one webhook', async () => {
    const ann = await makeAdmin({ workspaces: [[ws, 'reviewer']] });
    const bob = await makeAdmin({ workspaces: [[ws, 'owner']] });
    for (let round = 0; round < 5; round++) {
      const c = await makeReviewCase(ws, 'live');
      const results = await Promise.allSettled([
        decideCase(getDb(), ann, { verificationId: c.id, decision: { status: 'approved' } }),
        decideCase(getDb(), bob, { verificationId: c.id, decision: { status: 'declined', reason: 'fraud_detected' } }),
      ]);
      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect([won.length, lost.length]).toEqual([1, 1]);
      const err = lost[0].reason as DomainError;
      expect(err.code).toBe('INVALID_STATUS');
      const winner =
        results[0].status === 'fulfilled'
          ? { who: ann.email, status: 'approved' }
          : { who: bob.email, status: 'declined' };
      expect(err.details).toMatchObject({ decided_by: winner.who, decided_status: winner.status });
      expect(err.message).toContain(winner.who);
      const events = await getDb().select().from(webhookEvents).where(eq(webhookEvents.verificationId, c.id));
      expect(events.map((e) => e.status)).toEqual([winner.status]);
      const decided = await getDb().select().from(auditLog).where(eq(auditLog.verificationId, c.id));
      expect(decided.filter((d) => d.action === 'verification.decided')).toHaveLength(1);
    }
  });

  it('the case view names who decided, and offers the next waiting case', async () => {
    const reviewer = await makeAdmin({ workspaces: [[ws, 'reviewer']] });
    const own = await makeAdmin({ workspaces: [[ws, 'reviewer']] });
    const first = await makeReviewCase(ws, 'test', { inReviewSince: new Date(Date.now() - 60_000) });
    const second = await makeReviewCase(ws, 'test', { inReviewSince: new Date(Date.now() - 30_000) });
    const before = await loadCase(getDb(), reviewer, first.id);
    expect(before.neighbours.next).not.toBeNull();
    await decideCase(getDb(), own, { verificationId: first.id, decision: { status: 'approved' } });
    const after = await loadCase(getDb(), reviewer, first.id);
    expect(after.trail.find((e) => e.action === 'verification.decided')?.who).toBe(own.email);
    const q = await reviewQueue(getDb(), reviewer, { workspaceId: ws, mode: 'test' });
    expect(after.neighbours).toEqual({ previous: null, next: q.items[0].id });
    expect(q.items.map((i) => i.id)).toContain(second.id);
  });
});

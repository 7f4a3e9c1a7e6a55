import { beforeAll, describe, expect, it } from 'vitest';
import { and, eq, inArray, lte } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { verifications, webhookEvents, type VerificationStatus } from '@/lib/db/schema';
import { makeWorkspace, type TestWorkspace } from '@/test/helpers/factories';
import { createVerification } from './create';
import { INACTIVITY_MS, sweepTimers } from './timers';
import { decideReview } from './review';

describe('inactivity timers and admin decisions', () => {
  let w: TestWorkspace;
  // A clock far in the future, so rows of other tests in the shared database never fall due here.
  const T0 = new Date('2031-01-01T00:00:00Z');
  beforeAll(async () => {
    w = await makeWorkspace();
  });

  async function verificationIn(
    status: VerificationStatus,
    since: Date,
    mode: 'test' | 'live' = 'test',
    attemptsUsed = 0,
  ) {
    const { row } = await createVerification(getDb(), {
      workspace: w.workspace,
      keyMode: mode,
      fields: {},
      actor: 'key:k',
    });
    await getDb()
      .update(verifications)
      .set({ status, statusChangedAt: since, attemptsUsed })
      .where(eq(verifications.id, row.id));
    return row.id;
  }
  const statusOf = async (id: string) =>
    (await getDb().select().from(verifications).where(eq(verifications.id, id)))[0];
  const events = (id: string) => getDb().select().from(webhookEvents).where(eq(webhookEvents.verificationId, id));

  it('created → expired after 7 days without media, not a millisecond before; webhook written', async () => {
    const due = await verificationIn('created', new Date(T0.getTime() - INACTIVITY_MS));
    const early = await verificationIn('created', new Date(T0.getTime() - INACTIVITY_MS + 1));
    await sweepTimers(getDb(), T0);
    expect((await statusOf(due)).status).toBe('expired');
    expect((await statusOf(due)).completedAt?.getTime()).toBe(T0.getTime());
    expect((await statusOf(early)).status).toBe('created');
    const [e] = await events(due);
    expect(JSON.parse(e.body)).toMatchObject({ verification_id: due, status: 'expired' });
  });

  it('started and resubmission_requested → abandoned after 7 days; review and submitted untouched', async () => {
    const since = new Date(T0.getTime() - INACTIVITY_MS - 1000);
    const started = await verificationIn('started', since);
    const resub = await verificationIn('resubmission_requested', since);
    const review = await verificationIn('review', since);
    const submitted = await verificationIn('submitted', since);
    await sweepTimers(getDb(), T0);
    expect((await statusOf(started)).status).toBe('abandoned');
    expect((await statusOf(resub)).status).toBe('abandoned');
    expect((await statusOf(review)).status).toBe('review');
    expect((await statusOf(submitted)).status).toBe('submitted');
    expect((await events(started)).map((e) => e.status)).toEqual(['abandoned']);
  });

  it('two sweeps at once move each verification exactly once; a second run finds nothing', async () => {
    const at = new Date(T0.getTime() + 3 * INACTIVITY_MS);
    const ids = [];
    for (let i = 0; i < 30; i++) ids.push(await verificationIn('created', new Date(at.getTime() - INACTIVITY_MS - 1)));
    // Everything due at that time (ours, and earlier tests' rows that fall due by then).
    const due = await getDb()
      .select({ id: verifications.id })
      .from(verifications)
      .where(
        and(
          eq(verifications.status, 'created'),
          lte(verifications.statusChangedAt, new Date(at.getTime() - INACTIVITY_MS)),
        ),
      );
    const [a, b] = await Promise.all([sweepTimers(getDb(), at, 7), sweepTimers(getDb(), at, 7)]);
    expect(a.expired + b.expired).toBe(due.length);
    expect(due.length).toBeGreaterThanOrEqual(30);
    expect(await sweepTimers(getDb(), at)).toEqual({ expired: 0, abandoned: 0 });
    const evs = await getDb().select().from(webhookEvents).where(inArray(webhookEvents.verificationId, ids));
    expect(evs).toHaveLength(30);
  });

  describe('verification:decide', () => {
    it('approve, decline with a reason, request resubmission (test mode): each fires its webhook', async () => {
      const a = await verificationIn('review', T0);
      expect((await decideReview(getDb(), { verificationId: a, status: 'approved', actor: 'operator' })).status).toBe(
        'approved',
      );
      const d = await verificationIn('review', T0);
      const declined = await decideReview(getDb(), {
        verificationId: d,
        status: 'declined',
        reason: 'fraud_detected',
        actor: 'operator',
      });
      expect([declined.status, declined.reason]).toEqual(['declined', 'fraud_detected']);
      expect(JSON.parse((await events(d))[0].body)).toMatchObject({ status: 'declined', reason: 'fraud_detected' });
      const r = await verificationIn('review', T0, 'test', 2);
      const resub = await decideReview(getDb(), {
        verificationId: r,
        status: 'resubmission_requested',
        reason: 'selfie_quality',
        actor: 'operator',
      });
      expect([resub.status, resub.reason, resub.completedAt]).toEqual([
        'resubmission_requested',
        'selfie_quality',
        null,
      ]);
    });

    it('after the 5th attempt a resubmission becomes declined / max_attempts_exceeded', async () => {
      const id = await verificationIn('review', T0, 'test', 5);
      const v = await decideReview(getDb(), {
        verificationId: id,
        status: 'resubmission_requested',
        actor: 'operator',
      });
      expect([v.status, v.reason]).toEqual(['declined', 'max_attempts_exceeded']);
    });

    it('refuses: live-mode resubmission, a verification not in review, an unknown reason', async () => {
      const live = await verificationIn('review', T0, 'live');
      await expect(
        decideReview(getDb(), { verificationId: live, status: 'resubmission_requested', actor: 'operator' }),
      ).rejects.toMatchObject({ code: 'INVALID_STATUS' });
      const started = await verificationIn('started', T0);
      await expect(
        decideReview(getDb(), { verificationId: started, status: 'approved', actor: 'operator' }),
      ).rejects.toMatchObject({ code: 'INVALID_STATUS' });
      const r = await verificationIn('review', T0);
      await expect(
        decideReview(getDb(), { verificationId: r, status: 'declined', reason: 'because', actor: 'operator' }),
      ).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
      await expect(
        decideReview(getDb(), { verificationId: r, status: 'maybe', actor: 'operator' }),
      ).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    });
  });
});

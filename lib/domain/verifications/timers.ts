/**
 * Inactivity timers (docs/api.md "Statuses and transitions"): created → expired after 7 days
 * without media; started → abandoned after 7 days without submission; resubmission_requested → abandoned
 * after 7 days without a new upload. Measured from when the current status began. Takes a clock, so a
 * 7-day window is tested in milliseconds; safe to run on several servers at once.
 */
import { and, asc, eq, lte } from 'drizzle-orm';
import { verifications, type VerificationStatus } from '@/lib/db/schema';
import type { Db } from '@/lib/db/client';
import { DomainError } from '../../core/errors';
import { applyTransition, type Trigger } from '../transitions/state-machine';
import { enqueueTransitionWebhook } from '../webhooks/outbox';

export const INACTIVITY_MS = 7 * 24 * 60 * 60 * 1000;

const RULES: { from: VerificationStatus; trigger: Trigger; counter: 'expired' | 'abandoned' }[] = [
  { from: 'created', trigger: 'expiry_timer', counter: 'expired' },
  { from: 'started', trigger: 'abandon_timer', counter: 'abandoned' },
  { from: 'resubmission_requested', trigger: 'abandon_timer', counter: 'abandoned' },
];

export async function sweepTimers(
  db: Db,
  now: Date = new Date(),
  batch = 200,
): Promise<{ expired: number; abandoned: number }> {
  const counts = { expired: 0, abandoned: 0 };
  const cutoff = new Date(now.getTime() - INACTIVITY_MS);
  for (const rule of RULES) {
    for (;;) {
      const moved = await db.transaction(async (tx) => {
        const due = await tx
          .select({ id: verifications.id })
          .from(verifications)
          .where(and(eq(verifications.status, rule.from), lte(verifications.statusChangedAt, cutoff)))
          .orderBy(asc(verifications.statusChangedAt))
          .limit(batch)
          .for('update', { skipLocked: true });
        let n = 0;
        for (const { id } of due) {
          try {
            await enqueueTransitionWebhook(
              tx,
              await applyTransition(tx, { verificationId: id, trigger: rule.trigger, now }),
            );
            n++;
          } catch (e) {
            if (!(e instanceof DomainError && e.code === 'INVALID_STATUS')) throw e;
          }
        }
        return { seen: due.length, n };
      });
      counts[rule.counter] += moved.n;
      if (moved.seen < batch) break;
    }
  }
  return counts;
}

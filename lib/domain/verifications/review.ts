/**
 * A reviewer's decision on a verification in `review` (test mode always lands there; live `refer` cases
 * too): approve, decline with an optional reason, or, in test mode, request a resubmission. After the 5th
 * attempt a resubmission becomes a decline with max_attempts_exceeded (docs/api.md). Called alike by the
 * operator CLI (`verification:decide`) and the admin area.
 */
import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { verifications } from '@/lib/db/schema';
import type { Db } from '@/lib/db/client';
import { DomainError, notFound, parseOrThrow } from '../../core/errors';
import { audit } from '../audit/audit';
import { applyTransition } from '../transitions/state-machine';
import { enqueueTransitionWebhook } from '../webhooks/outbox';
import { ATTEMPTS_EXHAUSTED_REASON, attemptsExhausted, STEP_UP_REASON } from '../transitions/policy';
import { DECLINE_REASONS, RESUBMIT_REASONS, type ReasonCode } from '../transitions/reasons';

/** The resubmission reasons that apply to this verification (the step-up only to Age / estimation). */
export const resubmitReasonsFor = (v: { flow: string; checkMethod: string | null }) =>
  RESUBMIT_REASONS.filter((r) => r !== STEP_UP_REASON || canStepUp(v));
const canStepUp = (v: { flow: string; checkMethod: string | null }) =>
  v.flow === 'age' && v.checkMethod === 'estimation';

export const reviewDecision = z.discriminatedUnion('status', [
  z.object({ status: z.literal('approved'), reason: z.undefined().optional() }),
  z.object({ status: z.literal('declined'), reason: z.enum(DECLINE_REASONS).optional() }),
  z.object({ status: z.literal('resubmission_requested'), reason: z.enum(RESUBMIT_REASONS).default('selfie_quality') }),
]);

/**
 * `note`: the reviewer's own words, kept in the audit log with the decision under the verification's data key (it
 * is about the person: it goes with the data at erasure), never sent in the webhook.
 */
export type DecideReviewInput = {
  verificationId: string;
  status: string;
  reason?: string;
  note?: string;
  actor: string;
  requestId?: string;
};

export async function decideReview(db: Db, input: DecideReviewInput) {
  const d = parseOrThrow(reviewDecision, { status: input.status, reason: input.reason });
  return db.transaction(async (tx) => {
    const [v] = await tx.select().from(verifications).where(eq(verifications.id, input.verificationId)).for('update');
    if (!v) throw notFound('Verification');
    let trigger: 'admin_approve' | 'admin_decline' | 'admin_resubmit' =
      d.status === 'approved' ? 'admin_approve' : d.status === 'declined' ? 'admin_decline' : 'admin_resubmit';
    let reason: ReasonCode | null = d.reason ?? null;
    if (reason === STEP_UP_REASON && !canStepUp(v)) {
      throw new DomainError(
        'VALIDATION_ERROR',
        'Only an Age / estimation verification can be asked for a document: the others need one already.',
        { fields: { reason: ['document_required applies to Age / estimation only.'] } },
      );
    }
    if (trigger === 'admin_resubmit' && attemptsExhausted(v)) {
      trigger = 'admin_decline';
      reason = ATTEMPTS_EXHAUSTED_REASON;
    }
    const stepUp = trigger === 'admin_resubmit' && reason === STEP_UP_REASON ? { stepUp: 'document' as const } : {};
    const moved = await applyTransition(tx, { verificationId: v.id, trigger, patch: { reason, ...stepUp } });
    await enqueueTransitionWebhook(tx, moved);
    const { row } = moved;
    await audit(tx, {
      workspaceId: v.workspaceId,
      verificationId: v.id,
      actor: input.actor,
      requestId: input.requestId,
      action: 'verification.decided',
      data: { status: row.status, reason, ...(input.note ? { note: input.note.slice(0, 2000) } : {}) },
    });
    return row;
  });
}

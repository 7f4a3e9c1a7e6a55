/**
 * The admin decision on a verification in review (test mode always lands there): approve, decline with
 * an optional reason, or, in test mode, request a resubmission. After the 5th attempt a resubmission
 * becomes a decline with max_attempts_exceeded (decisions.md).
 */
import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { verifications } from '@/db/schema';
import type { Db } from '@/db/client';
import { notFound } from '../api/errors';
import { parseOrThrow } from '../api/zod';
import { audit } from '../audit';
import { applyTransition } from './state-machine';
import { MAX_ATTEMPTS } from './serialize';

export const DECLINE_REASONS = ['blocklist_match', 'fraud_detected', 'identity_mismatch', 'max_attempts_exceeded', 'age_below_threshold'] as const;
export const RESUBMIT_REASONS = ['selfie_quality', 'document_quality', 'liveness_failed', 'processing_error'] as const;

const decision = z.discriminatedUnion('status', [
  z.object({ status: z.literal('approved'), reason: z.undefined().optional() }),
  z.object({ status: z.literal('declined'), reason: z.enum(DECLINE_REASONS).optional() }),
  z.object({ status: z.literal('resubmission_requested'), reason: z.enum(RESUBMIT_REASONS).default('selfie_quality') }),
]);

export async function decideVerification(db: Db, input: { id: string; status: string; reason?: string }, actor: string) {
  const d = parseOrThrow(decision, { status: input.status, reason: input.reason });
  return db.transaction(async (tx) => {
    const [v] = await tx.select().from(verifications).where(eq(verifications.id, input.id)).for('update');
    if (!v) throw notFound('Verification');
    let trigger: 'admin_approve' | 'admin_decline' | 'admin_resubmit' = d.status === 'approved' ? 'admin_approve' : d.status === 'declined' ? 'admin_decline' : 'admin_resubmit';
    let reason: string | null = d.reason ?? null;
    if (trigger === 'admin_resubmit' && v.attemptsUsed >= MAX_ATTEMPTS) {
      trigger = 'admin_decline';
      reason = 'max_attempts_exceeded';
    }
    const { row } = await applyTransition(tx, { verificationId: v.id, trigger, patch: { reason } });
    await audit(tx, { workspaceId: v.workspaceId, verificationId: v.id, actor, action: 'verification.decided', data: { status: row.status, reason } });
    return row;
  });
}

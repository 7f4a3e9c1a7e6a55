/**
 * Erasure on request: DELETE /v1/verifications/{id}/data (scoped to the caller's workspace and mode), the
 * operator CLI (`verification:erase`) and the admin area. Any status: a decided case keeps its status, a case in
 * progress becomes `abandoned`. Idempotent: asking again returns the receipt of the erasure already made.
 */
import { and, eq } from 'drizzle-orm';
import { verifications, type VerificationRow } from '@/lib/db/schema';
import type { Db } from '@/lib/db/client';
import { DomainError, notFound } from '../../core/errors';
import { UUID_RE } from '../../core/ids';
import type { Scope } from '../verifications/get';
import { eraseLocked } from './erase';
import { receiptOf, type SignedReceipt } from './receipts';
import { log } from '../../core/log';

export type EraseRequest = { verificationId: string; scope?: Scope; actor: string; requestId?: string; now?: Date };
export type EraseOutcome = { verification: VerificationRow; receipt: SignedReceipt; erasedNow: boolean };

export async function eraseVerificationData(db: Db, input: EraseRequest): Promise<EraseOutcome> {
  const id = input.verificationId.toLowerCase();
  if (!UUID_RE.test(id)) throw notFound('Verification');
  return db.transaction(async (tx) => {
    const where = input.scope
      ? and(
          eq(verifications.id, id),
          eq(verifications.workspaceId, input.scope.workspaceId),
          eq(verifications.mode, input.scope.mode),
        )
      : eq(verifications.id, id);
    // Waits for a sweep or a pipeline decision holding the row, then sees what they did.
    const [v] = await tx.select().from(verifications).where(where).for('update');
    if (!v) throw notFound('Verification');
    if (v.dataErasedAt) {
      const receipt = await receiptOf(tx, v.id);
      if (!receipt) throw new DomainError('INTERNAL_ERROR', 'The erasure receipt of this verification is missing.');
      return { verification: v, receipt, erasedNow: false };
    }
    const [receipt] = await eraseLocked(tx, [v], {
      trigger: 'request',
      actor: input.actor,
      requestId: input.requestId,
      now: input.now ?? new Date(),
    });
    const [after] = await tx.select().from(verifications).where(eq(verifications.id, v.id));
    log.info('verification data erased', {
      verification_id: v.id,
      trigger: 'request',
      actor: input.actor,
      status: after.status,
      receipt_id: receipt.receipt.id,
    });
    return { verification: after, receipt, erasedNow: true };
  });
}

/** Submitting a verification: check the required media, spend an attempt, hand it to the pipeline. */
import { desc, eq } from 'drizzle-orm';
import { media, pipelineJobs, verifications } from '@/db/schema';
import type { Db } from '@/db/client';
import { DomainError, invalidStatus } from '../errors';
import { newId } from '../ids';
import { audit } from '../audit';
import { announce } from '../jobs/events';
import { getVerification, type Scope } from './get';
import { applyTransition } from './state-machine';
import { attemptsExhausted, missingMedia, SUBMIT_STATUSES, submittedMedia } from './policy';

export type SubmitVerificationInput = Scope & { verificationId: string; actor: string; requestId?: string };

/**
 * Submits (test mode: straight to `review`; live: `submitted` with a pipeline job written in the same
 * transaction, announced after the commit so the decision starts at once).
 */
export async function submitVerification(db: Db, input: SubmitVerificationInput) {
  // The read that scopes the id to this workspace and mode also brings the consent record (append-only,
  // so it cannot disappear before the locked read below).
  const { verification: v, consent } = await getVerification(db, { workspaceId: input.workspaceId, mode: input.mode, id: input.verificationId });
  if (!consent) throw new DomainError('CONSENT_REQUIRED', 'The user must accept the consent text before submitting.');
  return db.transaction(async (tx) => {
    const [row] = await tx.select().from(verifications).where(eq(verifications.id, v.id)).for('update');
    if (!SUBMIT_STATUSES.has(row.status)) throw invalidStatus(`A verification in status ${row.status} cannot be submitted.`, { status: row.status });
    const uploaded = await tx
      .select({ id: media.id, type: media.type, side: media.side, documentType: media.documentType })
      .from(media)
      .where(eq(media.verificationId, row.id))
      .orderBy(desc(media.createdAt), desc(media.id));
    const missing = missingMedia(row, uploaded);
    if (missing.length > 0) {
      throw new DomainError('MISSING_REQUIRED_MEDIA', `Upload the required media first: ${missing.join(', ')}.`, { missing });
    }
    if (attemptsExhausted(row)) throw invalidStatus('All submission attempts are used.', { status: row.status, attempts_remaining: 0 });
    const attempt = row.attemptsUsed + 1;
    const now = new Date();
    const trigger = row.mode === 'test' ? 'submit_test_mode' : 'submit';
    const { row: next } = await applyTransition(tx, { verificationId: row.id, trigger, now, patch: { attemptsUsed: attempt, submittedAt: now, reason: null } });
    if (row.mode === 'live') {
      // The pipeline's work, in the same transaction (outbox): a crash after commit loses nothing.
      await tx.insert(pipelineJobs).values({ id: newId('job'), verificationId: row.id, attempt, mediaIds: submittedMedia(uploaded) });
      await announce('verification/submitted', { verificationId: row.id });
    }
    await audit(tx, { workspaceId: row.workspaceId, verificationId: row.id, actor: input.actor, requestId: input.requestId, action: 'verification.submitted', data: { attempt, status: next.status } });
    return next;
  });
}

/** Submitting a verification: check the required media, spend an attempt, hand it to the pipeline. */
import { desc, eq } from 'drizzle-orm';
import { media, pipelineJobs, verifications, workspaces, type VerificationRow } from '@/lib/db/schema';
import type { Db, DbOrTx } from '@/lib/db/client';
import { checkDuplicates, NOT_CHECKED, rememberFace, type DuplicateCheck } from '../duplicates';
import { ANALYSIS_VERSION } from '../media/version';
import type { Analysis } from '../media/types';
import { DomainError, invalidStatus } from '../../core/errors';
import { newId } from '../../core/ids';
import { audit } from '../audit/audit';
import { announce } from '../events/events';
import { currentTraceparent } from '../../core/observability/tracing';
import { getVerification, type Scope } from './get';
import { applyTransition } from '../transitions/state-machine';
import { enqueueTransitionWebhook } from '../webhooks/outbox';
import { attemptsExhausted, missingMedia, SUBMIT_STATUSES, submittedMedia } from '../transitions/policy';

/**
 * The duplicate check of a test-mode submission, from the selfie's analysis made at upload (its face description),
 * without deciding anything; the face joins the test mode's duplicate search as a live one does after its
 * decision. An analysis by an older model (lib/domain/media/version.ts) or without a face gives no answer (`checked: false`).
 */
async function testModeDuplicateCheck(
  tx: DbOrTx,
  v: VerificationRow,
  selfieId: string | undefined,
  now: Date,
): Promise<DuplicateCheck> {
  if (!selfieId) return NOT_CHECKED;
  const [m] = await tx.select({ analysis: media.analysis }).from(media).where(eq(media.id, selfieId));
  const analysis = m?.analysis as Partial<Analysis> | null;
  const embedding = analysis?.version === ANALYSIS_VERSION ? analysis.faces?.[0]?.embedding : null;
  if (!embedding) return NOT_CHECKED;
  const [ws] = await tx.select().from(workspaces).where(eq(workspaces.id, v.workspaceId));
  const check = await checkDuplicates(tx, v, ws, embedding);
  await rememberFace(tx, v, embedding, now);
  return check;
}

export type SubmitVerificationInput = Scope & { verificationId: string; actor: string; requestId?: string };

/**
 * Submits (test mode: straight to `review`; live: `submitted` with a pipeline job written in the same
 * transaction, announced after the commit so the decision starts at once).
 */
export async function submitVerification(db: Db, input: SubmitVerificationInput) {
  // The read that scopes the id to this workspace and mode also brings the consent record (append-only,
  // so it cannot disappear before the locked read below).
  const { verification: v, consent } = await getVerification(db, {
    workspaceId: input.workspaceId,
    mode: input.mode,
    id: input.verificationId,
  });
  if (!consent) throw new DomainError('CONSENT_REQUIRED', 'The user must accept the consent text before submitting.');
  return db.transaction(async (tx) => {
    const [row] = await tx.select().from(verifications).where(eq(verifications.id, v.id)).for('update');
    if (!SUBMIT_STATUSES.has(row.status))
      throw invalidStatus(`A verification in status ${row.status} cannot be submitted.`, { status: row.status });
    const uploaded = await tx
      .select({ id: media.id, type: media.type, side: media.side, documentType: media.documentType })
      .from(media)
      .where(eq(media.verificationId, row.id))
      .orderBy(desc(media.createdAt), desc(media.id));
    const missing = missingMedia(row, uploaded);
    if (missing.length > 0) {
      throw new DomainError('MISSING_REQUIRED_MEDIA', `Upload the required media first: ${missing.join(', ')}.`, {
        missing,
      });
    }
    if (attemptsExhausted(row))
      throw invalidStatus('All submission attempts are used.', { status: row.status, attempts_remaining: 0 });
    const attempt = row.attemptsUsed + 1;
    const now = new Date();
    const trigger = row.mode === 'test' ? 'submit_test_mode' : 'submit';
    // Test mode skips the decision pipeline, not the duplicate search (docs/api.md: duplicate detection is
    // reported regardless of the decision): it runs here, so the review webhook and GET carry it.
    const duplicateCheck =
      row.mode === 'test' ? await testModeDuplicateCheck(tx, row, submittedMedia(uploaded).selfie, now) : undefined;
    const moved = await applyTransition(tx, {
      verificationId: row.id,
      trigger,
      now,
      patch: { attemptsUsed: attempt, submittedAt: now, reason: null, ...(duplicateCheck ? { duplicateCheck } : {}) },
    });
    await enqueueTransitionWebhook(tx, moved);
    const next = moved.row;
    if (row.mode === 'live') {
      // The pipeline's work, in the same transaction (outbox): a crash after commit loses nothing.
      // It carries this request's trace, which the decision continues (docs/operating.md "Traces").
      await tx.insert(pipelineJobs).values({
        id: newId('job'),
        verificationId: row.id,
        attempt,
        mediaIds: submittedMedia(uploaded),
        traceparent: currentTraceparent(),
      });
      await announce('verification/submitted', { verificationId: row.id });
    }
    await audit(tx, {
      workspaceId: row.workspaceId,
      verificationId: row.id,
      actor: input.actor,
      requestId: input.requestId,
      action: 'verification.submitted',
      data: { attempt, status: next.status },
    });
    return next;
  });
}

/** POST /v1/verifications/{id}/submit: check the required media, spend an attempt, hand to the pipeline. */
import { desc, eq } from 'drizzle-orm';
import { media, pipelineJobs, verifications } from '@/db/schema';
import type { Db } from '@/db/client';
import { ApiError } from '../api/errors';
import type { AuthResult } from '../auth/authenticate';
import { newId } from '../ids';
import { audit } from '../audit';
import { getVerificationWithConsentOrThrow } from '.';
import { applyTransition } from './state-machine';
import { MAX_ATTEMPTS } from './serialize';

export type RequiredMedia = 'selfie' | 'document_front' | 'document_back';

/** interface.md "Required media before submit"; a passport needs its front only. */
export function missingMedia(
  v: { flow: 'age' | 'kyc'; checkMethod: string | null },
  uploaded: { type: string; side: string | null; documentType: string | null }[],
): RequiredMedia[] {
  const missing: RequiredMedia[] = [];
  if (!uploaded.some((m) => m.type === 'selfie')) missing.push('selfie');
  const needsDocument = v.flow === 'kyc' || v.checkMethod === 'document_verification';
  if (!needsDocument) return missing;
  // The newest upload per side counts.
  const front = uploaded.find((m) => m.type === 'document' && m.side === 'front');
  const back = uploaded.find((m) => m.type === 'document' && m.side === 'back');
  if (!front) missing.push('document_front');
  if (!back && front?.documentType !== 'passport') missing.push('document_back');
  return missing;
}

/** The newest upload of each kind: what a submission sends to the pipeline. */
export function submittedMedia(uploaded: { id: string; type: string; side: string | null }[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of uploaded) {
    const key = m.type === 'selfie' ? 'selfie' : `document_${m.side}`;
    out[key] ??= m.id; // uploaded is newest first
  }
  return out;
}

export async function submitVerification(db: Db, auth: AuthResult, verificationId: string, ctx: { actor: string; requestId?: string }) {
  // The read that scopes the id to this workspace and mode also brings the consent record (append-only,
  // so it cannot disappear before the locked read below).
  const { row: v, consent } = await getVerificationWithConsentOrThrow(db, auth, verificationId);
  if (!consent) throw new ApiError('CONSENT_REQUIRED', 'The user must accept the consent text before submitting.');
  return db.transaction(async (tx) => {
    const [row] = await tx.select().from(verifications).where(eq(verifications.id, v.id)).for('update');
    if (row.status !== 'created' && row.status !== 'started') {
      throw new ApiError('INVALID_STATUS', `A verification in status ${row.status} cannot be submitted.`, { status: row.status });
    }
    const uploaded = await tx
      .select({ id: media.id, type: media.type, side: media.side, documentType: media.documentType })
      .from(media)
      .where(eq(media.verificationId, row.id))
      .orderBy(desc(media.createdAt), desc(media.id));
    const missing = missingMedia(row, uploaded);
    if (missing.length > 0) {
      throw new ApiError('MISSING_REQUIRED_MEDIA', `Upload the required media first: ${missing.join(', ')}.`, { missing });
    }
    if (row.attemptsUsed >= MAX_ATTEMPTS) {
      throw new ApiError('INVALID_STATUS', 'All submission attempts are used.', { status: row.status, attempts_remaining: 0 });
    }
    const attempt = row.attemptsUsed + 1;
    const now = new Date();
    const trigger = row.mode === 'test' ? 'submit_test_mode' : 'submit';
    const { row: updated } = await applyTransition(tx, { verificationId: row.id, trigger, now, patch: { attemptsUsed: attempt, submittedAt: now, reason: null } });
    if (row.mode === 'live') {
      // The pipeline's work, in the same transaction (outbox): a crash after commit loses nothing.
      await tx.insert(pipelineJobs).values({ id: newId('job'), verificationId: row.id, attempt, mediaIds: submittedMedia(uploaded) });
    }
    await audit(tx, { workspaceId: row.workspaceId, verificationId: row.id, actor: ctx.actor, requestId: ctx.requestId, action: 'verification.submitted', data: { attempt, status: updated.status } });
    return updated;
  });
}


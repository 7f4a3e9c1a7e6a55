/** POST /v1/verifications/{id}/media: validate an image, store it, and move the verification on. */
import { eq } from 'drizzle-orm';
import { media, verifications } from '@/db/schema';
import type { Db } from '@/db/client';
import { ApiError } from '../api/errors';
import type { AuthResult } from '../auth/authenticate';
import { newId } from '../ids';
import { audit } from '../audit';
import { getVerificationWithConsentOrThrow } from '../verifications';
import { applyTransition } from '../verifications/state-machine';
import { analysisPool } from './pool';
import { checkDocument, checkFile, checkSelfie, throwIfFailed } from './validate';
import { mediaStore } from './storage';

export type UploadInput = {
  type: 'selfie' | 'document';
  side?: 'front' | 'back';
  document_type?: 'passport' | 'id_card' | 'driving_licence';
  file: Uint8Array;
};

/** decisions.md: upload is allowed in these statuses. */
export const UPLOAD_STATUSES = new Set(['created', 'started', 'resubmission_requested']);

export type MediaRow = typeof media.$inferSelect;

export function serializeMedia(m: MediaRow) {
  return {
    id: m.id,
    verification_id: m.verificationId,
    type: m.type,
    ...(m.type === 'document' ? { side: m.side, document_type: m.documentType } : {}),
    status: m.status,
    created_at: m.createdAt.toISOString(),
  };
}

export async function uploadMedia(db: Db, auth: AuthResult, verificationId: string, input: UploadInput, ctx: { actor: string; requestId?: string }) {
  const { row: v, consent } = await getVerificationWithConsentOrThrow(db, auth, verificationId);
  if (!consent) throw new ApiError('CONSENT_REQUIRED', 'The user must accept the consent text before media is uploaded.');
  if (!UPLOAD_STATUSES.has(v.status)) {
    throw new ApiError('INVALID_STATUS', `Media cannot be uploaded in status ${v.status}.`, { status: v.status });
  }
  const side = input.type === 'document' ? (input.side ?? 'front') : null;
  const documentType = input.type === 'document' ? (input.document_type ?? 'id_card') : null;

  let analysis;
  let checks;
  try {
    const file = await checkFile(input.file);
    checks = file.checks;
    analysis = await analysisPool().analyze(input.file, input.type);
    const { failed } = input.type === 'selfie' ? checkSelfie(analysis, checks) : checkDocument(analysis, checks, side!);
    throwIfFailed(failed, checks);
  } catch (e) {
    if (e instanceof ApiError) {
      // A rejected upload keeps nothing but this audit entry.
      await audit(db, {
        workspaceId: v.workspaceId,
        verificationId: v.id,
        actor: ctx.actor,
        requestId: ctx.requestId,
        action: 'media.rejected',
        data: { type: input.type, side, code: e.code, failed_checks: (e.details as { failed_checks?: unknown })?.failed_checks ?? null },
      });
    }
    throw e;
  }

  const { stored, ...measured } = analysis;
  const id = newId('med');
  return db.transaction(async (tx) => {
    // Serialised with submit on the verification row: an upload either lands before a submit or is refused.
    const [locked] = await tx.select({ status: verifications.status }).from(verifications).where(eq(verifications.id, v.id)).for('update');
    if (!UPLOAD_STATUSES.has(locked.status)) {
      throw new ApiError('INVALID_STATUS', `Media cannot be uploaded in status ${locked.status}.`, { status: locked.status });
    }
    const [m] = await tx
      .insert(media)
      .values({
        id,
        verificationId: v.id,
        type: input.type,
        side,
        documentType,
        contentType: 'image/jpeg',
        byteSize: stored.byteLength,
        width: measured.width,
        height: measured.height,
        analysis: { ...measured, checks },
        source: ctx.actor === 'capture' ? 'capture' : 'api',
      })
      .returning();
    await mediaStore.put(tx, id, stored);
    await applyTransition(tx, { verificationId: v.id, trigger: 'media_uploaded' });
    await audit(tx, { workspaceId: v.workspaceId, verificationId: v.id, actor: ctx.actor, requestId: ctx.requestId, action: 'media.uploaded', data: { media_id: id, type: input.type, side, document_type: documentType } });
    return m;
  });
}


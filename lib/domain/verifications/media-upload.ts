/** Uploading media: validate an image, store it encrypted, and move the verification on. */
import { eq } from 'drizzle-orm';
import { media, verifications } from '@/lib/db/schema';
import type { Db } from '@/lib/db/client';
import { DomainError, invalidStatus } from '../../core/errors';
import { newId } from '../../core/ids';
import { audit } from '../audit/audit';
import { getVerification, type Scope } from './get';
import { applyTransition } from '../transitions/state-machine';
import { enqueueTransitionWebhook } from '../webhooks/outbox';
import { UPLOAD_STATUSES } from '../transitions/policy';
import { analysisPool } from '../media/pool';
import { checkFile, checkSelfie, throwIfFailed } from '../media/validate';
import { mediaStore } from '../media/storage';
import { checkDocumentUpload, sealRead, type CodeRead } from '../documents/read';

export type UploadMediaInput = Scope & {
  verificationId: string;
  type: 'selfie' | 'document';
  /** Documents only: docs/api.md's defaults are front and id_card. */
  side?: 'front' | 'back';
  documentType?: 'passport' | 'id_card' | 'driving_licence';
  file: Uint8Array;
  actor: string;
  requestId?: string;
};

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

export async function uploadMedia(db: Db, input: UploadMediaInput) {
  const ctx = { actor: input.actor, requestId: input.requestId };
  const { verification: v, consent } = await getVerification(db, {
    workspaceId: input.workspaceId,
    mode: input.mode,
    id: input.verificationId,
  });
  if (!consent)
    throw new DomainError('CONSENT_REQUIRED', 'The user must accept the consent text before media is uploaded.');
  if (!UPLOAD_STATUSES.has(v.status))
    throw invalidStatus(`Media cannot be uploaded in status ${v.status}.`, { status: v.status });
  const side = input.type === 'document' ? (input.side ?? 'front') : null;
  const documentType = input.type === 'document' ? (input.documentType ?? 'id_card') : null;

  let analysis;
  let checks;
  let read: CodeRead | null = null;
  try {
    const file = await checkFile(input.file, input.type);
    checks = file.checks;
    analysis = await analysisPool().analyze(input.file, input.type, { workspace: v.workspaceId, verification: v.id });
    let failed;
    if (input.type === 'selfie') ({ failed } = checkSelfie(analysis, checks));
    else ({ failed, read } = await checkDocumentUpload(analysis, checks, side!, documentType!, input.file));
    throwIfFailed(failed, checks);
  } catch (e) {
    if (e instanceof DomainError) {
      // A rejected upload keeps nothing but this audit entry.
      await audit(db, {
        workspaceId: v.workspaceId,
        verificationId: v.id,
        actor: ctx.actor,
        requestId: ctx.requestId,
        action: 'media.rejected',
        data: {
          type: input.type,
          side,
          code: e.code,
          failed_checks: (e.details as { failed_checks?: unknown })?.failed_checks ?? null,
        },
      });
    }
    throw e;
  }

  const { stored, ...measured } = analysis;
  const id = newId('med');
  return db.transaction(async (tx) => {
    // Serialised with submit on the verification row: an upload either lands before a submit or is refused.
    const [locked] = await tx
      .select({ status: verifications.status })
      .from(verifications)
      .where(eq(verifications.id, v.id))
      .for('update');
    if (!UPLOAD_STATUSES.has(locked.status))
      throw invalidStatus(`Media cannot be uploaded in status ${locked.status}.`, { status: locked.status });
    const readSealed = read ? await sealRead(tx, v.id, id, read) : null;
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
        readSealed,
      })
      .returning();
    await mediaStore.put(tx, id, stored);
    await enqueueTransitionWebhook(tx, await applyTransition(tx, { verificationId: v.id, trigger: 'media_uploaded' }));
    await audit(tx, {
      workspaceId: v.workspaceId,
      verificationId: v.id,
      actor: ctx.actor,
      requestId: ctx.requestId,
      action: 'media.uploaded',
      data: { media_id: id, type: input.type, side, document_type: documentType },
    });
    return m;
  });
}

/**
 * The capture endpoints' operations (app/api/capture/[token]/…): the hosted page's view of one
 * verification, and consent, upload and submit through the very lib/ functions /v1 calls, so every rule and
 * validation error is the same. Answers carry only what the person verifying needs to see.
 */
import { desc, eq } from 'drizzle-orm';
import { z } from 'zod';
import { media } from '@/db/schema';
import type { DbOrTx } from '@/db/client';
import type { ApiContext, HandlerResult } from '../api/route';
import { acceptConsent, getActiveConsent, getConsentRecord, publicConsentVersion } from '../consent';
import { missingMedia } from '../verifications/submit';
import { attemptsRemaining } from '../verifications/serialize';
import type { VerificationRow } from '../verifications/state-machine';
import { consentById, mediaFields, submitAndStart, uploadFromForm } from '../verifications/operations';

export const tokenParams = z.object({ token: z.string() });

/** What the page shows; decided statuses say what happened, never the evidence behind it. */
export async function captureState(db: DbOrTx, v: VerificationRow, workspaceName: string) {
  const [consent, active, uploads] = await Promise.all([
    getConsentRecord(db, v.id),
    getActiveConsent(db),
    db
      .select({ type: media.type, side: media.side, documentType: media.documentType, createdAt: media.createdAt })
      .from(media)
      .where(eq(media.verificationId, v.id))
      .orderBy(desc(media.createdAt), desc(media.id)),
  ]);
  const needsDocument = v.flow === 'kyc' || v.checkMethod === 'document_verification';
  // Uploads since the last submission: what this attempt has (a resubmission starts from what is kept).
  const since = (m: { createdAt: Date }) => !v.submittedAt || m.createdAt > v.submittedAt;
  const front = uploads.find((m) => m.type === 'document' && m.side === 'front');
  const consentVersion = active ? publicConsentVersion(active) : null;
  return {
    status: v.status,
    mode: v.mode,
    flow: v.flow,
    check_method: v.checkMethod,
    workspace_name: workspaceName,
    needs_document: needsDocument,
    // The text is fetched by the page from its path on this origin (the CSP allows only self).
    consent: {
      accepted: Boolean(consent),
      version: consentVersion && { id: consentVersion.id, version: consentVersion.version, text_path: `/consent/${consentVersion.id}.txt` },
    },
    media: {
      selfie: uploads.some((m) => m.type === 'selfie' && since(m)),
      document_front: Boolean(front && since(front)),
      document_back: uploads.some((m) => m.type === 'document' && m.side === 'back' && since(m)),
      document_type: front?.documentType ?? null,
    },
    missing: missingMedia(v, uploads),
    attempts_remaining: attemptsRemaining(v),
    reason: v.reason,
    // Estimation shows the person nothing of the estimate itself: only the outcome.
  };
}

export async function getCaptureStateOp(ctx: ApiContext<{ token: string }, unknown>): Promise<HandlerResult> {
  return { data: await captureState(ctx.db, ctx.verification!, ctx.auth.workspace.name), headers: { 'cache-control': 'no-store' } };
}

/** The page computes the SHA-256 over the bytes it showed; only this request shape is offered to it. */
export const captureConsentBody = consentById;

export async function captureConsentOp(ctx: ApiContext<{ token: string }, z.infer<typeof consentById>>): Promise<HandlerResult> {
  const v = ctx.verification!;
  await acceptConsent(ctx.db, v, { shape: 'id', consentVersionId: ctx.body.consent_version_id, textSha256: ctx.body.text_sha256 }, { actor: 'capture', requestId: ctx.requestId });
  return { data: await captureState(ctx.db, v, ctx.auth.workspace.name) };
}

export async function captureUploadOp(ctx: ApiContext<{ token: string }, z.infer<typeof mediaFields>>): Promise<HandlerResult> {
  return { status: 201, data: await uploadFromForm(ctx, ctx.verification!.id) };
}

export async function captureSubmitOp(ctx: ApiContext<{ token: string }, unknown>): Promise<HandlerResult> {
  const v = await submitAndStart(ctx, ctx.verification!.id);
  return { data: { status: v.status, attempts_remaining: attemptsRemaining(v) } };
}

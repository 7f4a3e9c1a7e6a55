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
import { ApiError, validationError } from '../api/errors';
import { UPLOAD_STATUSES } from '../media/upload';
import { analysisPool } from '../media/pool';
import { completeChallenge, issueChallenge, latestChallenge, skipChallenge } from '../liveness/challenge';
import { workspaces } from '@/db/schema';

export const tokenParams = z.object({ token: z.string() });

/** What the page shows; decided statuses say what happened, never the evidence behind it. */
export async function captureState(db: DbOrTx, v: VerificationRow, workspaceName: string) {
  const [consent, active, uploads, ws, challenge] = await Promise.all([
    getConsentRecord(db, v.id),
    getActiveConsent(db),
    db
      .select({ type: media.type, side: media.side, documentType: media.documentType, createdAt: media.createdAt })
      .from(media)
      .where(eq(media.verificationId, v.id))
      .orderBy(desc(media.createdAt), desc(media.id)),
    db.select({ requireActiveLiveness: workspaces.requireActiveLiveness }).from(workspaces).where(eq(workspaces.id, v.workspaceId)),
    latestChallenge(db, v.id),
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
    // The head-turn challenge before the selfie, where the workspace requires it (docs/api.md, Active liveness).
    active_liveness: {
      required: Boolean(ws[0]?.requireActiveLiveness),
      // done for this attempt: passed, or skipped for the accessible alternative
      done: Boolean((challenge?.outcome?.passed || challenge?.outcome?.skipped) && !(v.submittedAt && challenge.completedAt && challenge.completedAt < v.submittedAt)),
    },
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

export const challengeParams = z.object({ token: z.string(), challenge: z.string() });
export const challengeFields = z.strictObject({ nonce: z.string().min(16).max(200) });

/** Consent first, and only while media may be uploaded: the frames are media of the verification. */
async function challengeAllowed(ctx: ApiContext<unknown, unknown>) {
  const v = ctx.verification!;
  if (!(await getConsentRecord(ctx.db, v.id))) throw new ApiError('CONSENT_REQUIRED', 'The user must accept the consent text first.');
  if (!UPLOAD_STATUSES.has(v.status)) throw new ApiError('INVALID_STATUS', `No challenge in status ${v.status}.`, { status: v.status });
  return v;
}

export const challengeRequest = z.strictObject({ skip: z.literal(true).optional() }).optional();

/** A new challenge; or, with `{"skip": true}`, the accessible alternative (a reviewer checks instead). */
export async function captureChallengeOp(ctx: ApiContext<{ token: string }, z.infer<typeof challengeRequest>>): Promise<HandlerResult> {
  const v = await challengeAllowed(ctx);
  if (ctx.body?.skip) {
    const o = await skipChallenge(ctx.db, v);
    return { status: 201, data: { id: o.id, skipped: true } };
  }
  return { status: 201, data: await issueChallenge(ctx.db, v), headers: { 'cache-control': 'no-store' } };
}

export async function captureChallengeFramesOp(ctx: ApiContext<{ token: string; challenge: string }, z.infer<typeof challengeFields>>): Promise<HandlerResult> {
  const v = await challengeAllowed(ctx);
  const files = ctx.form!.files;
  const bad = files.filter((f) => !/^frame_\d$/.test(f.field)).map((f) => f.field);
  if (bad.length) throw validationError(Object.fromEntries(bad.map((n) => [n, ['Unknown file field: send frame_0, frame_1, …']])));
  const frames = [...files].sort((a, b) => a.field.localeCompare(b.field)).map((f) => f.bytes);
  const outcome = await completeChallenge(ctx.db, v, { challengeId: ctx.params.challenge, nonce: ctx.body.nonce, frames }, (b, k) => analysisPool().analyze(b, k));
  return { data: { id: outcome.id, passed: outcome.passed, failure: outcome.failure, steps: outcome.steps, frames: outcome.frames.map((f) => ({ step: f.step, face_found: f.face_found, turn: f.yaw })) } };
}

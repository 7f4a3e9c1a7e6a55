/**
 * The capture endpoints' handlers (app/api/capture/[token]/…): the hosted page's view of one verification,
 * and consent, upload and submit through the very operations /v1 calls, with the verification the link's
 * token opened, so every rule and validation error is the same.
 */
import { z } from 'zod';
import type { ApiContext, HandlerResult } from '../route';
import { acceptConsent, getConsentRecord } from '../../domain/consent';
import { DomainError, validationError } from '../../core/errors';
import { analysisPool } from '../../domain/media/pool';
import { completeChallenge, issueChallenge, skipChallenge } from '../../domain/liveness/challenge';
import { captureState } from '../../domain/capture/state';
import { submitVerification } from '../../domain/verifications/submit';
import { attemptsRemaining, UPLOAD_STATUSES } from '../../domain/transitions/policy';
import { caller, consentById, mediaFields, uploadFromForm } from './verifications';

export const tokenParams = z.object({ token: z.string() });

export async function captureStateHandler(ctx: ApiContext<{ token: string }, unknown>): Promise<HandlerResult> {
  return {
    data: await captureState(ctx.db, ctx.verification!, ctx.auth.workspace.name),
    headers: { 'cache-control': 'no-store' },
  };
}

/** The page computes the SHA-256 over the bytes it showed; only this request shape is offered to it. */
export const captureConsentBody = consentById;

export async function captureConsentHandler(
  ctx: ApiContext<{ token: string }, z.infer<typeof consentById>>,
): Promise<HandlerResult> {
  const v = ctx.verification!;
  const acceptance = {
    shape: 'id' as const,
    consentVersionId: ctx.body.consent_version_id,
    textSha256: ctx.body.text_sha256,
  };
  await acceptConsent(ctx.db, { verification: v, acceptance, actor: 'capture', requestId: ctx.requestId });
  return { data: await captureState(ctx.db, v, ctx.auth.workspace.name) };
}

export async function captureUploadHandler(
  ctx: ApiContext<{ token: string }, z.infer<typeof mediaFields>>,
): Promise<HandlerResult> {
  return { status: 201, data: await uploadFromForm(ctx, ctx.verification!.id) };
}

export async function captureSubmitHandler(ctx: ApiContext<{ token: string }, unknown>): Promise<HandlerResult> {
  const v = await submitVerification(ctx.db, { ...caller(ctx), verificationId: ctx.verification!.id });
  return { data: { status: v.status, attempts_remaining: attemptsRemaining(v) } };
}

export const challengeParams = z.object({ token: z.string(), challenge: z.string() });
export const challengeFields = z.strictObject({ nonce: z.string().min(16).max(200) });

/** Consent first, and only while media may be uploaded: the frames are media of the verification. */
async function challengeAllowed(ctx: ApiContext<unknown, unknown>) {
  const v = ctx.verification!;
  if (!(await getConsentRecord(ctx.db, v.id)))
    throw new DomainError('CONSENT_REQUIRED', 'The user must accept the consent text first.');
  if (!UPLOAD_STATUSES.has(v.status))
    throw new DomainError('INVALID_STATUS', `No challenge in status ${v.status}.`, { status: v.status });
  return v;
}

export const challengeRequest = z.strictObject({ skip: z.literal(true).optional() }).optional();

/** A new challenge; or, with `{"skip": true}`, the accessible alternative (a reviewer checks instead). */
export async function captureChallengeHandler(
  ctx: ApiContext<{ token: string }, z.infer<typeof challengeRequest>>,
): Promise<HandlerResult> {
  const v = await challengeAllowed(ctx);
  if (ctx.body?.skip) {
    const o = await skipChallenge(ctx.db, v);
    return { status: 201, data: { id: o.id, skipped: true } };
  }
  return { status: 201, data: await issueChallenge(ctx.db, v), headers: { 'cache-control': 'no-store' } };
}

export async function captureChallengeFramesHandler(
  ctx: ApiContext<{ token: string; challenge: string }, z.infer<typeof challengeFields>>,
): Promise<HandlerResult> {
  const v = await challengeAllowed(ctx);
  const files = ctx.form!.files;
  const bad = files.filter((f) => !/^frame_\d$/.test(f.field)).map((f) => f.field);
  if (bad.length)
    throw validationError(Object.fromEntries(bad.map((n) => [n, ['Unknown file field: send frame_0, frame_1, …']])));
  const frames = await Promise.all([...files].sort((a, b) => a.field.localeCompare(b.field)).map((f) => f.read()));
  const outcome = await completeChallenge(
    ctx.db,
    v,
    { challengeId: ctx.params.challenge, nonce: ctx.body.nonce, frames },
    (b, k) => analysisPool().analyze(b, k),
  );
  return {
    data: {
      id: outcome.id,
      passed: outcome.passed,
      failure: outcome.failure,
      steps: outcome.steps,
      frames: outcome.frames.map((f) => ({ step: f.step, face_found: f.face_found, turn: f.yaw })),
    },
  };
}

/**
 * The capture endpoints' handlers (app/api/capture/[token]/…): the hosted page's view of one verification,
 * and consent, upload and submit through the very operations /v1 calls, with the verification the link's
 * token opened, so every rule and validation error is the same.
 */
import { z } from 'zod';
import type { ApiContext, HandlerResult } from '../route';
import { acceptConsent } from '../../consent';
import { captureState } from '../../capture/state';
import { submitVerification } from '../../verifications/submit';
import { attemptsRemaining } from '../../verifications/policy';
import { caller, consentById, mediaFields, uploadFromForm } from './verifications';

export const tokenParams = z.object({ token: z.string() });

export async function captureStateHandler(ctx: ApiContext<{ token: string }, unknown>): Promise<HandlerResult> {
  return { data: await captureState(ctx.db, ctx.verification!, ctx.auth.workspace.name), headers: { 'cache-control': 'no-store' } };
}

/** The page computes the SHA-256 over the bytes it showed; only this request shape is offered to it. */
export const captureConsentBody = consentById;

export async function captureConsentHandler(ctx: ApiContext<{ token: string }, z.infer<typeof consentById>>): Promise<HandlerResult> {
  const v = ctx.verification!;
  const acceptance = { shape: 'id' as const, consentVersionId: ctx.body.consent_version_id, textSha256: ctx.body.text_sha256 };
  await acceptConsent(ctx.db, { verification: v, acceptance, actor: 'capture', requestId: ctx.requestId });
  return { data: await captureState(ctx.db, v, ctx.auth.workspace.name) };
}

export async function captureUploadHandler(ctx: ApiContext<{ token: string }, z.infer<typeof mediaFields>>): Promise<HandlerResult> {
  return { status: 201, data: await uploadFromForm(ctx, ctx.verification!.id) };
}

export async function captureSubmitHandler(ctx: ApiContext<{ token: string }, unknown>): Promise<HandlerResult> {
  const v = await submitVerification(ctx.db, { ...caller(ctx), verificationId: ctx.verification!.id });
  return { data: { status: v.status, attempts_remaining: attemptsRemaining(v) } };
}

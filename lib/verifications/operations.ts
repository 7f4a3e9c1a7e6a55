/** The API operations on a verification, each called by one route. */
import { z } from 'zod';
import type { ApiContext, HandlerResult } from '../api/route';
import { actorOf } from '../auth/authenticate';
import { parseOrThrow } from '../api/zod';
import { validationError } from '../api/errors';
import { acceptConsent, consentFields, getActiveConsentOrThrow, publicConsentVersion } from '../consent';
import { createVerification, getVerificationOrThrow, getVerificationWithConsentOrThrow, type CreateVerificationBody } from '.';
import { attemptsRemaining, captureUrl, serializeVerification } from './serialize';
import { serializeMedia, uploadMedia } from '../media/upload';
import { submitVerification } from './submit';
import { EVENTS, notify } from '@/inngest/client';

export const idParams = z.object({ id: z.string() });

export async function createVerificationOp(ctx: ApiContext<unknown, CreateVerificationBody>): Promise<HandlerResult> {
  const { row, replayed } = await createVerification(ctx.db, ctx.auth, ctx.body, {
    idempotencyKey: ctx.req.headers.get('idempotency-key'),
    rawBody: ctx.rawBody,
    requestId: ctx.requestId,
  });
  return {
    status: 201,
    headers: replayed ? { 'idempotent-replayed': 'true' } : {},
    data: {
      id: row.id,
      status: row.status,
      mode: row.mode,
      external_id: row.externalId,
      external_metadata: row.externalMetadata ?? null,
      url: captureUrl(row.captureToken),
      created_at: row.createdAt.toISOString(),
    },
  };
}

export async function getVerificationOp(ctx: ApiContext<{ id: string }, unknown>): Promise<HandlerResult> {
  const { row, consent } = await getVerificationWithConsentOrThrow(ctx.db, ctx.auth, ctx.params.id);
  return { data: serializeVerification(row, consent) };
}

export async function getActiveConsentOp(ctx: ApiContext<unknown, unknown>): Promise<HandlerResult> {
  return { data: publicConsentVersion(await getActiveConsentOrThrow(ctx.db)) };
}

export const consentById = z.strictObject({
  consent_version_id: z.number({ error: 'Must be an integer.' }).int('Must be an integer.').positive('Must be positive.'),
  text_sha256: z.string({ error: 'Must be a string.' }).regex(/^[0-9a-fA-F]{64}$/, 'Must be 64 hexadecimal characters.'),
});
const byLabel = z.strictObject({
  consent_version: z.string({ error: 'Must be a string.' }).min(1),
  accepted: z.boolean({ error: 'Must be a boolean.' }),
});

/** Both request shapes of interface.md; which one is meant is read from the fields present. */
export const consentBody = z.record(z.string(), z.unknown());

export async function acceptConsentOp(ctx: ApiContext<{ id: string }, Record<string, unknown>>): Promise<HandlerResult> {
  const v = await getVerificationOrThrow(ctx.db, ctx.auth, ctx.params.id);
  const b = ctx.body;
  let input: Parameters<typeof acceptConsent>[2];
  if ('consent_version_id' in b || 'text_sha256' in b) {
    const p = parseOrThrow(consentById, b);
    input = { shape: 'id', consentVersionId: p.consent_version_id, textSha256: p.text_sha256 };
  } else if ('consent_version' in b || 'accepted' in b) {
    const p = parseOrThrow(byLabel, b);
    input = { shape: 'label', consentVersion: p.consent_version, accepted: p.accepted };
  } else {
    throw validationError({ consent_version_id: ['Required.'], text_sha256: ['Required.'] });
  }
  const rec = await acceptConsent(ctx.db, v, input, { actor: actorOf(ctx.auth), requestId: ctx.requestId });
  return { data: { id: v.id, ...consentFields(rec) } };
}

export const mediaFields = z.strictObject({
  type: z.enum(['selfie', 'document'], { error: 'Must be selfie or document.' }),
  side: z.enum(['front', 'back'], { error: 'Must be front or back.' }).optional(),
  document_type: z.enum(['passport', 'id_card', 'driving_licence'], { error: 'Must be passport, id_card or driving_licence.' }).optional(),
});


/** Validates the multipart fields and stores the upload (the media endpoints of /v1 and of the capture page). */
export async function uploadFromForm(ctx: ApiContext<unknown, z.infer<typeof mediaFields>>, verificationId: string) {
  const files = ctx.form!.files;
  const file = files.find((f) => f.field === 'file');
  const stray = files.filter((f) => f.field !== 'file').map((f) => f.field);
  if (!file || stray.length) {
    throw validationError({ ...(file ? {} : { file: ['Required: the image file.'] }), ...Object.fromEntries(stray.map((n) => [n, ['Unknown file field.']])) });
  }
  if (ctx.body.type === 'selfie' && (ctx.body.side || ctx.body.document_type)) {
    throw validationError({ [ctx.body.side ? 'side' : 'document_type']: ['Only for documents.'] });
  }
  const m = await uploadMedia(ctx.db, ctx.auth, verificationId, { ...ctx.body, file: file.bytes }, { actor: actorOf(ctx.auth), requestId: ctx.requestId });
  return serializeMedia(m);
}

export async function uploadMediaOp(ctx: ApiContext<{ id: string }, z.infer<typeof mediaFields>>): Promise<HandlerResult> {
  return { status: 201, data: await uploadFromForm(ctx, ctx.params.id) };
}

/** Submits, then (after commit) starts the decision now via Inngest; the safety-net cron and the in-process runner find the job anyway. */
export async function submitAndStart(ctx: ApiContext<unknown, unknown>, verificationId: string) {
  const v = await submitVerification(ctx.db, ctx.auth, verificationId, { actor: actorOf(ctx.auth), requestId: ctx.requestId });
  if (v.status === 'submitted') await notify(EVENTS.submitted, { verificationId: v.id });
  return v;
}

export async function submitOp(ctx: ApiContext<{ id: string }, unknown>): Promise<HandlerResult> {
  const v = await submitAndStart(ctx, ctx.params.id);
  return { data: { id: v.id, status: v.status, submitted_at: v.submittedAt!.toISOString(), attempts_remaining: attemptsRemaining(v) } };
}

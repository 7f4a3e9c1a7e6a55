/**
 * The /v1 handlers: each turns one request (its authentication, params and validated body) into one
 * domain operation's input, and the operation's result into the API's representation. No rules live here.
 */
import { z } from 'zod';
import type { ApiContext, HandlerResult } from '../route';
import { actorOf } from '../../domain/auth/authenticate';
import { parseOrThrow, validationError } from '../../core/errors';
import { sha256Hex } from '../../core/crypto/hash';
import {
  acceptConsent,
  consentFields,
  getActiveConsentOrThrow,
  publicConsentVersion,
  type AcceptConsentInput,
} from '../../domain/consent';
import { createVerification, type CreateVerificationFields } from '../../domain/verifications/create';
import { getVerification } from '../../domain/verifications/get';
import { listVerifications, type ListVerificationsQuery } from '../../domain/verifications/list';
import { submitVerification } from '../../domain/verifications/submit';
import { serializeCreated, serializeVerification } from '../../domain/verifications/serialize';
import { rawMember } from '../../core/json-raw';
import { attemptsRemaining } from '../../domain/transitions/policy';
import { serializeMedia, uploadMedia } from '../../domain/verifications/media-upload';
import { supportedLocale } from '../../core/i18n/schema';

export const idParams = z.object({ id: z.string() });

/** Who is asking, in the terms of the domain: the workspace, the mode, and the actor for the audit log. */
export const caller = (ctx: ApiContext<unknown, unknown>) => ({
  workspaceId: ctx.auth.workspace.id,
  mode: ctx.auth.mode,
  actor: actorOf(ctx.auth),
  requestId: ctx.requestId,
});

export async function createVerificationHandler(
  ctx: ApiContext<unknown, CreateVerificationFields>,
): Promise<HandlerResult> {
  const key = ctx.req.headers.get('idempotency-key');
  const { row, replayed } = await createVerification(ctx.db, {
    workspace: ctx.auth.workspace,
    keyMode: ctx.auth.via.kind === 'unsigned' ? null : ctx.auth.mode,
    fields: ctx.body,
    // The field's own text from the body (parsed once already, so it is valid JSON).
    externalMetadataRaw: ctx.body.external_metadata
      ? rawMember(new TextDecoder().decode(ctx.rawBody), 'external_metadata')
      : undefined,
    idempotency: key === null ? null : { key, bodyHash: sha256Hex(ctx.rawBody) },
    actor: actorOf(ctx.auth),
    requestId: ctx.requestId,
  });
  return {
    status: 201,
    headers: replayed ? { 'idempotent-replayed': 'true' } : {},
    data: serializeCreated(row),
  };
}

export async function getVerificationHandler(ctx: ApiContext<{ id: string }, unknown>): Promise<HandlerResult> {
  const { verification, consent } = await getVerification(ctx.db, { ...caller(ctx), id: ctx.params.id });
  return { data: serializeVerification(verification, consent) };
}

export async function listVerificationsHandler(
  ctx: ApiContext<unknown, unknown, ListVerificationsQuery>,
): Promise<HandlerResult> {
  const q = ctx.query;
  const { items, nextCursor } = await listVerifications(ctx.db, {
    ...caller(ctx),
    externalId: q.external_id,
    statuses: q.status,
    updatedSince: q.updated_since ? new Date(q.updated_since) : undefined,
    limit: q.limit,
    cursor: q.cursor,
  });
  return {
    data: { items: items.map((i) => serializeVerification(i.verification, i.consent)), next_cursor: nextCursor },
  };
}

/** `?lang=`: the text in that language (English when the version has none in it); English without. */
export const consentQuery = z.strictObject({ lang: supportedLocale.optional() });

export async function getActiveConsentHandler(
  ctx: ApiContext<unknown, unknown, z.infer<typeof consentQuery>>,
): Promise<HandlerResult> {
  // The interface's other shape of this resource carries the text itself (`consent_text`): both shapes in one (docs/api.md "Consent").
  return { data: publicConsentVersion(await getActiveConsentOrThrow(ctx.db), ctx.query?.lang, { withText: true }) };
}

export const consentById = z.strictObject({
  consent_version_id: z
    .number({ error: 'Must be an integer.' })
    .int('Must be an integer.')
    .positive('Must be positive.'),
  text_sha256: z
    .string({ error: 'Must be a string.' })
    .regex(/^[0-9a-fA-F]{64}$/, 'Must be 64 hexadecimal characters.'),
});
export const consentByLabel = z.strictObject({
  consent_version: z.string({ error: 'Must be a string.' }).min(1),
  accepted: z.boolean({ error: 'Must be a boolean.' }),
});

/** Both request shapes of docs/api.md; which one is meant is read from the fields present. */
export const consentBody = z.record(z.string(), z.unknown());

function consentAcceptance(b: Record<string, unknown>): AcceptConsentInput {
  if ('consent_version_id' in b || 'text_sha256' in b) {
    const p = parseOrThrow(consentById, b);
    return { shape: 'id', consentVersionId: p.consent_version_id, textSha256: p.text_sha256 };
  }
  if ('consent_version' in b || 'accepted' in b) {
    const p = parseOrThrow(consentByLabel, b);
    return { shape: 'label', consentVersion: p.consent_version, accepted: p.accepted };
  }
  throw validationError({ consent_version_id: ['Required.'], text_sha256: ['Required.'] });
}

export async function acceptConsentHandler(
  ctx: ApiContext<{ id: string }, Record<string, unknown>>,
): Promise<HandlerResult> {
  const c = caller(ctx);
  const { verification } = await getVerification(ctx.db, { ...c, id: ctx.params.id });
  const rec = await acceptConsent(ctx.db, {
    verification,
    acceptance: consentAcceptance(ctx.body),
    actor: c.actor,
    requestId: c.requestId,
  });
  return { data: { id: verification.id, ...consentFields(rec) } };
}

export const mediaFields = z.strictObject({
  type: z.enum(['selfie', 'document'], { error: 'Must be selfie or document.' }),
  side: z.enum(['front', 'back'], { error: 'Must be front or back.' }).optional(),
  document_type: z
    .enum(['passport', 'id_card', 'driving_licence'], { error: 'Must be passport, id_card or driving_licence.' })
    .optional(),
});

/** The multipart fields and file of an upload (the media endpoints of /v1 and of the capture page), stored. */
export async function uploadFromForm(ctx: ApiContext<unknown, z.infer<typeof mediaFields>>, verificationId: string) {
  const files = ctx.form!.files;
  const file = files.find((f) => f.field === 'file');
  const stray = files.filter((f) => f.field !== 'file').map((f) => f.field);
  if (!file || stray.length) {
    throw validationError({
      ...(file ? {} : { file: ['Required: the image file.'] }),
      ...Object.fromEntries(stray.map((n) => [n, ['Unknown file field.']])),
    });
  }
  if (ctx.body.type === 'selfie' && (ctx.body.side || ctx.body.document_type)) {
    throw validationError({ [ctx.body.side ? 'side' : 'document_type']: ['Only for documents.'] });
  }
  const m = await uploadMedia(ctx.db, {
    ...caller(ctx),
    verificationId,
    type: ctx.body.type,
    side: ctx.body.side,
    documentType: ctx.body.document_type,
    file: await file.read(),
  });
  return serializeMedia(m);
}

export async function uploadMediaHandler(
  ctx: ApiContext<{ id: string }, z.infer<typeof mediaFields>>,
): Promise<HandlerResult> {
  return { status: 201, data: await uploadFromForm(ctx, ctx.params.id) };
}

export async function submitHandler(ctx: ApiContext<{ id: string }, unknown>): Promise<HandlerResult> {
  const v = await submitVerification(ctx.db, { ...caller(ctx), verificationId: ctx.params.id });
  return {
    data: {
      id: v.id,
      status: v.status,
      submitted_at: v.submittedAt!.toISOString(),
      attempts_remaining: attemptsRemaining(v),
    },
  };
}

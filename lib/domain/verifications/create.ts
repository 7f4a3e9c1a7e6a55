/** Creating a verification: the integrator's first call (POST /v1/verifications). */
import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { dataKeys, verifications, type VerificationRow, type Workspace } from '@/lib/db/schema';
import type { DbOrTx } from '@/lib/db/client';
import { DomainError, validationError } from '../../core/errors';
import { newId, uuidv7 } from '../../core/ids';
import { newCaptureToken } from '../capture/auth';
import { hot } from '@/lib/db/hot-queries';
import { afterCommit } from '@/lib/db/after-commit';
import { metrics } from '../../core/observability/metrics';
import type { Mode } from '../auth/keys';
import { supportedLocale } from '../../core/i18n/schema';
import { randomBytes } from 'node:crypto';
import { wrapDataKey } from '../personal-data/data-keys';
import { AAD, openVerificationWith, sealText } from '../personal-data/personal';

const codePoints = (s: string) => [...s].length;
// Control characters make ids unprintable in logs and dashboards; everything else in Unicode is allowed.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

export const EXTERNAL_METADATA_MAX_BYTES = 16 * 1024;

export const RETURN_URL_MAX = 2048;
/**
 * Extension (docs/api.md): `return_url`, where the capture page's "Back to …" button leads. https only (never
 * `javascript:`, `data:` or plain http), absolute, with a host, without credentials, printable ASCII as sent
 * (an URL with spaces or non-ASCII must be percent-encoded by the integrator: it is used exactly as given).
 */
export function isReturnUrl(s: string): boolean {
  if (!/^[\x21-\x7e]+$/.test(s) || !/^https:\/\//i.test(s)) return false;
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    return false;
  }
  return u.protocol === 'https:' && u.hostname !== '' && u.username === '' && u.password === '';
}

export const createVerificationBody = z.strictObject({
  external_id: z
    .string()
    .refine((s) => codePoints(s) >= 1 && codePoints(s) <= 255, 'Must be 1 to 255 characters.')
    .refine((s) => !CONTROL.test(s), 'Must not contain control characters.')
    .nullable()
    .optional(),
  external_metadata: z
    .record(z.string(), z.unknown())
    .refine(
      (o) => Buffer.byteLength(JSON.stringify(o)) <= EXTERNAL_METADATA_MAX_BYTES,
      'Must be at most 16 KiB serialized.',
    )
    .nullable()
    .optional(),
  flow: z.enum(['age', 'kyc']).optional(),
  mode: z.enum(['test', 'live']).optional(),
  return_url: z
    .string()
    .max(RETURN_URL_MAX, `Must be at most ${RETURN_URL_MAX} characters.`)
    .refine(isReturnUrl, 'Must be an absolute https:// URL with a host name and no user name or password.')
    .nullable()
    .optional(),
  /**
   * Extension (docs/api.md, docs/capture-page.md): the capture page's language, a BCP 47 tag negotiated here to one
   * of the page's languages (`fr-CA` → `fr`) and stored so; the person's own choice on the page still comes first.
   */
  locale: supportedLocale.nullable().optional(),
});
export type CreateVerificationFields = z.infer<typeof createVerificationBody>;

export const IDEMPOTENCY_KEY_RE = /^[\x21-\x7e]{1,255}$/;

export type CreateVerificationInput = {
  workspace: Workspace;
  /** The mode of the key that signed the request; null for an unsigned create (docs/api.md: the body's mode, or live). */
  keyMode: Mode | null;
  fields: CreateVerificationFields;
  /** `external_metadata`'s text as sent (lib/core/json-raw.ts), returned as it came; without it, the parsed object's. */
  externalMetadataRaw?: string;
  /** A retry with the same key and the same body (by its hash) returns the same verification. */
  idempotency?: { key: string; bodyHash: string } | null;
  actor: string;
  requestId?: string;
};

/**
 * Creates a verification in `created`. The mode is the signing key's; the flow and check method are
 * the workspace's. With an idempotency key, a retry with the same body returns the same verification.
 */
export async function createVerification(
  db: DbOrTx,
  input: CreateVerificationInput,
): Promise<{ row: VerificationRow; replayed: boolean }> {
  const { workspace: ws, fields } = input;
  let mode: Mode;
  if (input.keyMode === null) mode = fields.mode ?? 'live';
  else if (fields.mode && fields.mode !== input.keyMode) {
    throw validationError({ mode: [`Must match the signing key's mode (${input.keyMode}).`] });
  } else mode = input.keyMode;
  if (fields.flow && fields.flow !== ws.flow) {
    throw validationError({ flow: [`This workspace is configured for the ${ws.flow} flow.`] });
  }
  const key = input.idempotency?.key ?? null;
  if (key !== null && !IDEMPOTENCY_KEY_RE.test(key)) {
    throw validationError({ 'Idempotency-Key': ['Must be 1 to 255 printable ASCII characters.'] });
  }

  const id = uuidv7();
  const { captureTokenHash, captureTokenCiphertext } = newCaptureToken(id);
  // external_metadata is personal data: it is written only under the verification's own data key, made here
  // and inserted in the same statement (docs/privacy.md, "What is stored").
  const metadataText = fields.external_metadata
    ? (input.externalMetadataRaw ?? JSON.stringify(fields.external_metadata))
    : null;
  const dataKey = metadataText === null ? null : randomBytes(32);
  const wrapped = dataKey ? wrapDataKey(id, dataKey) : null;
  const values = {
    id,
    workspaceId: ws.id,
    mode,
    flow: ws.flow,
    checkMethod: ws.flow === 'age' ? ws.checkMethod : null,
    externalId: fields.external_id ?? null,
    externalMetadataSealed: dataKey && metadataText !== null ? sealText(dataKey, AAD.metadata(id), metadataText) : null,
    returnUrl: fields.return_url ?? null,
    locale: fields.locale ?? null,
    captureTokenHash,
    captureTokenCiphertext,
    idempotencyKey: key,
    idempotencyHash: key ? input.idempotency!.bodyHash : null,
  };
  // The row and its audit entry in one statement (lib/db/hot-queries.ts).
  const inserted = await hot(db, 'insertVerification').execute({
    ...values,
    kekId: wrapped?.kekId ?? null,
    wrappedKey: wrapped?.wrapped ?? null,
    auditId: newId('aud'),
    actor: input.actor,
    requestId: input.requestId ?? null,
    auditData: JSON.stringify({ mode, external_id: values.externalId }),
  });
  if (inserted.length === 1) {
    await afterCommit(() => metrics().verificationsCreated.inc({ mode }));
    // The row as the caller reads it: its metadata's text in memory (the stored column holds it sealed).
    return { row: { ...inserted[0], externalMetadataRaw: metadataText }, replayed: false };
  }
  // Only the idempotency index can conflict (ids and tokens are random): this is a retry.
  const [prior] = await db
    .select()
    .from(verifications)
    .where(
      and(eq(verifications.workspaceId, ws.id), eq(verifications.mode, mode), eq(verifications.idempotencyKey, key!)),
    );
  if (!prior) throw new DomainError('INTERNAL_ERROR', 'Could not create the verification.');
  if (prior.idempotencyHash !== input.idempotency!.bodyHash) {
    throw validationError(
      { 'Idempotency-Key': ['Already used with a different request body.'] },
      'This Idempotency-Key was used with a different request body.',
    );
  }
  const [priorKey] = prior.externalMetadataSealed
    ? await db.select().from(dataKeys).where(eq(dataKeys.verificationId, prior.id))
    : [];
  return { row: openVerificationWith(prior, priorKey), replayed: true };
}

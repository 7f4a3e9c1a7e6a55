import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { verifications } from '@/db/schema';
import type { DbOrTx } from '@/db/client';
import { ApiError, notFound, validationError } from '../api/errors';
import { actorOf, type AuthResult } from '../auth/authenticate';
import { sha256Hex } from '../crypto/hash';
import { randomToken, uuidv7, UUID_RE } from '../ids';
import { audit } from '../audit';
import { hot } from '../api/hot-queries';
import type { VerificationRow } from './state-machine';

const codePoints = (s: string) => [...s].length;
// Control characters make ids unprintable in logs and dashboards; everything else in Unicode is allowed.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

export const EXTERNAL_METADATA_MAX_BYTES = 16 * 1024;

export const createVerificationBody = z.strictObject({
  external_id: z
    .string()
    .refine((s) => codePoints(s) >= 1 && codePoints(s) <= 255, 'Must be 1 to 255 characters.')
    .refine((s) => !CONTROL.test(s), 'Must not contain control characters.')
    .nullable()
    .optional(),
  external_metadata: z
    .record(z.string(), z.unknown())
    .refine((o) => Buffer.byteLength(JSON.stringify(o)) <= EXTERNAL_METADATA_MAX_BYTES, 'Must be at most 16 KiB serialized.')
    .nullable()
    .optional(),
  flow: z.enum(['age', 'kyc']).optional(),
  mode: z.enum(['test', 'live']).optional(),
});
export type CreateVerificationBody = z.infer<typeof createVerificationBody>;

export const IDEMPOTENCY_KEY_RE = /^[\x21-\x7e]{1,255}$/;

/**
 * Creates a verification in `created`. The mode is the signing key's; the flow and check method are
 * the workspace's. With an Idempotency-Key, a retry with the same body returns the same verification.
 */
export async function createVerification(
  db: DbOrTx,
  auth: AuthResult,
  body: CreateVerificationBody,
  opts: { idempotencyKey?: string | null; rawBody: Uint8Array; requestId?: string },
): Promise<{ row: VerificationRow; replayed: boolean }> {
  const ws = auth.workspace;
  let mode = auth.mode;
  if (auth.via.kind === 'unsigned') mode = body.mode ?? 'live';
  else if (body.mode && body.mode !== auth.mode) {
    throw validationError({ mode: [`Must match the signing key's mode (${auth.mode}).`] });
  }
  if (body.flow && body.flow !== ws.flow) {
    throw validationError({ flow: [`This workspace is configured for the ${ws.flow} flow.`] });
  }

  const key = opts.idempotencyKey ?? null;
  if (key !== null && !IDEMPOTENCY_KEY_RE.test(key)) {
    throw validationError({ 'Idempotency-Key': ['Must be 1 to 255 printable ASCII characters.'] });
  }
  const bodyHash = sha256Hex(opts.rawBody);

  const values = {
    id: uuidv7(),
    workspaceId: ws.id,
    mode,
    flow: ws.flow,
    checkMethod: ws.flow === 'age' ? ws.checkMethod : null,
    externalId: body.external_id ?? null,
    externalMetadata: body.external_metadata ?? null,
    captureToken: randomToken(),
    idempotencyKey: key,
    idempotencyHash: key ? bodyHash : null,
  };
  const inserted = await hot(db, 'insertVerification').execute(values);
  if (inserted.length === 1) {
    await audit(db, {
      workspaceId: ws.id,
      verificationId: values.id,
      actor: actorOf(auth),
      requestId: opts.requestId,
      action: 'verification.created',
      data: { mode, external_id: values.externalId },
    });
    return { row: inserted[0], replayed: false };
  }
  // Only the idempotency index can conflict (ids and tokens are random): this is a retry.
  const [prior] = await db
    .select()
    .from(verifications)
    .where(and(eq(verifications.workspaceId, ws.id), eq(verifications.mode, mode), eq(verifications.idempotencyKey, key!)));
  if (!prior) throw new ApiError('INTERNAL_ERROR', 'Could not create the verification.');
  if (prior.idempotencyHash !== bodyHash) {
    throw validationError(
      { 'Idempotency-Key': ['Already used with a different request body.'] },
      'This Idempotency-Key was used with a different request body.',
    );
  }
  return { row: prior, replayed: true };
}

/**
 * Reads a verification of this workspace and mode, with its latest consent record, in one round trip.
 * Anything else (a malformed id, another workspace's, the other mode's) is 404.
 */
export async function getVerificationWithConsentOrThrow(db: DbOrTx, auth: Pick<AuthResult, 'workspace' | 'mode'>, rawId: string) {
  const id = rawId.toLowerCase();
  if (!UUID_RE.test(id)) throw notFound('Verification');
  const [r] = await hot(db, 'verificationWithConsent').execute({ id, workspaceId: auth.workspace.id, mode: auth.mode });
  if (!r) throw notFound('Verification');
  return { row: r.v, consent: r.consent ?? undefined };
}

export async function getVerificationOrThrow(db: DbOrTx, auth: Pick<AuthResult, 'workspace' | 'mode'>, rawId: string) {
  return (await getVerificationWithConsentOrThrow(db, auth, rawId)).row;
}

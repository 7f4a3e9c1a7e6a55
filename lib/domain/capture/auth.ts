/**
 * The hosted capture page's authentication: the unguessable token of the verification's `url`
 * (256 random bits). It grants exactly what the end user needs on that one verification (read its state,
 * accept consent, upload, submit) and nothing else; the browser never sees a secret key.
 * The token is never logged, and never stored in clear: the database holds its SHA-256, by which the link
 * is found, and a ciphertext (AES-256-GCM under ENCRYPTION_KEY, bound to the verification's id) from which
 * the `url` can be shown again. Someone who reads the database without the key cannot open a link.
 * The rate limit is keyed by the verification.
 */
import { eq } from 'drizzle-orm';
import type { DbOrTx } from '@/lib/db/client';
import { verifications, workspaces } from '@/lib/db/schema';
import { DomainError } from '../../core/errors';
import type { AuthResult } from '../auth/authenticate';
import type { VerificationRow } from '@/lib/db/schema';
import { sha256Hex } from '../../core/crypto/hash';
import { openWithKek, sealWithKek } from '../../core/crypto/secretbox';
import { randomToken } from '../../core/ids';
import { captureTokenAad } from '../../core/crypto/sealed-columns';

/** randomToken(): 43 characters of base64url. Anything else is not a token. */
export const CAPTURE_TOKEN_RE = /^[A-Za-z0-9_-]{32,64}$/;
/** Requests per rolling minute per capture link (page polling included). */
export const CAPTURE_RATE_LIMIT_PER_MINUTE = 120;

export const captureRateKey = (verificationId: string) => `cap:${verificationId}`;

export const captureTokenHash = (token: string) => sha256Hex(token);
export { captureTokenAad };
const aad = captureTokenAad;

/** A new link for a verification: the token (for its url) and what is stored of it. */
export function newCaptureToken(verificationId: string) {
  const token = randomToken();
  return {
    token,
    captureTokenHash: captureTokenHash(token),
    captureTokenCiphertext: sealWithKek(token, aad(verificationId)),
  };
}

/** The token of a verification's link, for its url; null for links made before tokens were encrypted. */
export function revealCaptureToken(v: Pick<VerificationRow, 'id' | 'captureTokenCiphertext'>): string | null {
  return v.captureTokenCiphertext ? openWithKek(v.captureTokenCiphertext, aad(v.id)).toString('utf8') : null;
}

export async function verificationByToken(db: DbOrTx, token: string) {
  if (!CAPTURE_TOKEN_RE.test(token)) return null;
  const [r] = await db
    .select({ v: verifications, workspace: workspaces })
    .from(verifications)
    .innerJoin(workspaces, eq(workspaces.id, verifications.workspaceId))
    .where(eq(verifications.captureTokenHash, captureTokenHash(token)))
    .limit(1);
  return r ?? null;
}

/** The capture link's verification, as the auth of the lib/ operations /v1 uses (its workspace and mode). */
export async function authenticateCapture(
  db: DbOrTx,
  token: string,
): Promise<{ auth: AuthResult; verification: VerificationRow }> {
  const r = await verificationByToken(db, token);
  if (!r) throw new DomainError('NOT_FOUND', 'This verification link is not valid.');
  return { auth: { workspace: r.workspace, mode: r.v.mode, via: { kind: 'capture' } }, verification: r.v };
}

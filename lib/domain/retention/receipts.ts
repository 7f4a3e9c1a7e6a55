/**
 * Erasure receipts: what was erased, when, for which verification and external_id, signed with Ed25519 so
 * that anyone holding the service's public key (published, unauthenticated, at {BASE_URL}/receipt-keys as a
 * JWK set) can check later that this service issued it and that not a byte of it changed. No shared secret is
 * involved, so an integrator can hand a receipt to a regulator, who can check it too.
 *
 * What is signed: the `receipt` object serialised canonically (RFC 8785, JSON Canonicalization Scheme: keys
 * sorted, no whitespace; receipts hold only strings, integers, booleans, null, arrays and objects), as UTF-8.
 * docs/verify-receipt.mjs is a verifier of a few lines; docs/receipts.md says how to use it.
 *
 * The signing key is generated on first use and stored with its private half sealed by ENCRYPTION_KEY (so it
 * is rotated with it, and every server of a deployment signs with the same key); its id is in every receipt.
 */
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign,
  verify,
  type KeyObject,
} from 'node:crypto';
import { asc, eq } from 'drizzle-orm';
import { erasureReceipts, signingKeys } from '@/lib/db/schema';
import type { DbOrTx } from '@/lib/db/client';
import { env } from '../../core/env';
import { openWithKek, sealWithKek } from '../../core/crypto/secretbox';

/** RFC 8785 for the values receipts hold: object keys sorted by UTF-16 code units, JSON.stringify's escapes. */
export function canonicalJson(v: unknown): string {
  if (v === null || typeof v !== 'object') {
    if (typeof v === 'number' && !Number.isFinite(v)) throw new Error('canonicalJson: not a finite number');
    return JSON.stringify(v);
  }
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`;
}

export type ErasedMedia = {
  id: string;
  type: string;
  side: string | null;
  document_type: string | null;
  bytes: boolean;
  analysis: boolean;
};

export type Receipt = {
  type: 'open-verify/erasure-receipt';
  version: 1;
  id: string;
  issuer: string;
  keys_url: string;
  workspace_id: string;
  verification_id: string;
  external_id: string | null;
  mode: 'test' | 'live';
  /** The verification's status after the erasure (an erased case in progress is abandoned). */
  status: string;
  trigger: 'retention' | 'request';
  /** `key:<id>` (DELETE /v1/…/data), `operator` (CLI), `admin:<id>` (admin area), `system` (the retention sweep). */
  requested_by: string;
  /** The terminal decision the retention counted from (null for a case erased before one). */
  decided_at: string | null;
  /** The workspace's retention in days, for an erasure by the retention sweep; null on request. */
  retention_days: number | null;
  erased_at: string;
  erased: {
    /** Every photo of the verification: its stored bytes and its analysis (measurements, face embedding). */
    media: ErasedMedia[];
    /** The selfie's embedding in the duplicate search. */
    face_embedding: boolean;
    /** Faces described from the head-turn challenge's frames (each frame's, and the challenge's straight face). */
    liveness_faces: number;
    /** The verification's data key (everything still encrypted under it anywhere is unreadable). */
    data_key: boolean;
    /** The personal fields of the result, by path (names, date of birth, document number…). */
    result_fields: string[];
    external_metadata: boolean;
    /** Stored webhook bodies rewritten without the erased fields, and stored receiver answers dropped. */
    webhook_bodies: number;
    webhook_responses: number;
  };
  kept: {
    /** What the verification still says (its decision and dates). */
    fields: string[];
    /** Blocklist entries made from this verification's face: a deliberate record of their own, removed only by an admin. */
    blocklist_entries: number;
  };
};

export type SignedReceipt = { receipt: Receipt; signature: { alg: 'EdDSA'; kid: string; value: string } };

export type Jwk = {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
  alg: 'EdDSA';
  use: 'sig';
  status: 'active' | 'retired';
  created_at: string;
};

export const receiptKeysUrl = () => `${env().BASE_URL}/receipt-keys`;

const aad = (id: string) => `signing_key:${id}`;
type SigningRow = typeof signingKeys.$inferSelect;

/** The active signing key, made (once, whichever server gets there first) when there is none. */
async function activeRow(db: DbOrTx): Promise<SigningRow> {
  const [row] = await db.select().from(signingKeys).where(eq(signingKeys.active, true));
  if (row) return row;
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const x = publicKey.export({ format: 'jwk' }).x!;
  const id = `rk_${createHash('sha256').update(Buffer.from(x, 'base64url')).digest('hex').slice(0, 16)}`;
  const der = privateKey.export({ format: 'der', type: 'pkcs8' });
  // The unique index on the active key makes a second server's insert do nothing; both then read the winner.
  await db
    .insert(signingKeys)
    .values({ id, algorithm: 'Ed25519', publicKey: x, privateKeySealed: sealWithKek(der, aad(id)) })
    .onConflictDoNothing();
  const [winner] = await db.select().from(signingKeys).where(eq(signingKeys.active, true));
  return winner;
}

export type ReceiptSigner = { kid: string; privateKey: KeyObject };

export async function receiptSigner(db: DbOrTx): Promise<ReceiptSigner> {
  const row = await activeRow(db);
  return {
    kid: row.id,
    privateKey: createPrivateKey({ key: openWithKek(row.privateKeySealed, aad(row.id)), format: 'der', type: 'pkcs8' }),
  };
}

export function signReceipt(signer: ReceiptSigner, receipt: Receipt): SignedReceipt {
  const value = sign(null, Buffer.from(canonicalJson(receipt), 'utf8'), signer.privateKey).toString('base64url');
  return { receipt, signature: { alg: 'EdDSA', kid: signer.kid, value } };
}

/** The published keys (GET /receipt-keys): the active one and every retired one, so old receipts still verify. */
export async function receiptKeys(db: DbOrTx): Promise<{ keys: Jwk[] }> {
  await activeRow(db);
  const rows = await db.select().from(signingKeys).orderBy(asc(signingKeys.createdAt));
  return {
    keys: rows.map((r) => ({
      kty: 'OKP',
      crv: 'Ed25519',
      x: r.publicKey,
      kid: r.id,
      alg: 'EdDSA',
      use: 'sig',
      status: r.active ? 'active' : 'retired',
      created_at: r.createdAt.toISOString(),
    })),
  };
}

/** Checks a receipt against a key set; the same steps as docs/verify-receipt.mjs. */
export function verifyReceipt(
  signed: SignedReceipt,
  jwks: { keys: Pick<Jwk, 'kty' | 'crv' | 'x' | 'kid'>[] },
): { valid: boolean; reason?: string } {
  if (signed?.signature?.alg !== 'EdDSA') return { valid: false, reason: 'unknown algorithm' };
  const jwk = jwks.keys.find((k) => k.kid === signed.signature.kid);
  if (!jwk) return { valid: false, reason: `no published key ${signed.signature.kid}` };
  const key = createPublicKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x }, format: 'jwk' });
  const ok = verify(
    null,
    Buffer.from(canonicalJson(signed.receipt), 'utf8'),
    key,
    Buffer.from(signed.signature.value, 'base64url'),
  );
  return ok ? { valid: true } : { valid: false, reason: 'signature does not match the receipt' };
}

/** A stored receipt, as it was signed. */
export function storedReceipt(row: typeof erasureReceipts.$inferSelect): SignedReceipt {
  return { receipt: JSON.parse(row.payload), signature: { alg: 'EdDSA', kid: row.keyId, value: row.signature } };
}

export async function receiptOf(db: DbOrTx, verificationId: string): Promise<SignedReceipt | null> {
  const [row] = await db.select().from(erasureReceipts).where(eq(erasureReceipts.verificationId, verificationId));
  return row ? storedReceipt(row) : null;
}

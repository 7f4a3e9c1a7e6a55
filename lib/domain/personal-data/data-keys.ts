/**
 * Crypto-shredding: each verification has its own data key (32 random bytes) for its photos and the personal
 * fields of its result, stored only wrapped by ENCRYPTION_KEY (table data_keys, with the wrapping key's id).
 * Erasing the verification deletes that row; from then on the ciphertexts, wherever a copy of them went, cannot
 * be decrypted with anything this service holds.
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { eq } from 'drizzle-orm';
import { dataKeys } from '@/lib/db/schema';
import type { DbOrTx } from '@/lib/db/client';
import { unwrapWithKek, wrapWithKek } from '../../core/crypto/secretbox';

export type DataKeyRow = { verificationId: string; kekId: string; wrapped: Buffer };

const aad = (verificationId: string) => `data_key:${verificationId}`;

/** The data key of a verification whose data was erased (or never had one): nothing can be decrypted. */
export class DataKeyDestroyedError extends Error {
  constructor(readonly verificationId: string) {
    super(`The data key of verification ${verificationId} no longer exists: its data was erased.`);
    this.name = 'DataKeyDestroyedError';
  }
}

export const unwrapDataKey = (row: DataKeyRow): Buffer =>
  unwrapWithKek(row.kekId, row.wrapped, aad(row.verificationId));

export function wrapDataKey(verificationId: string, key: Buffer) {
  return wrapWithKek(key, aad(verificationId));
}

/**
 * The verification's data key, created on first need. Refused once the verification's data was erased: a key
 * made then would let new personal data in after the receipt said it was gone.
 */
export async function ensureDataKey(db: DbOrTx, verificationId: string): Promise<Buffer> {
  const key = randomBytes(32);
  const { kekId, wrapped } = wrapDataKey(verificationId, key);
  const inserted = await db.execute<{ verification_id: string }>(sql`
    insert into data_keys (verification_id, kek_id, wrapped)
    select ${verificationId}, ${kekId}, ${wrapped}
    where exists (select 1 from verifications where id = ${verificationId} and data_erased_at is null)
    on conflict (verification_id) do nothing
    returning verification_id`);
  if (Array.from(inserted).length === 1) return key;
  const existing = await loadDataKey(db, verificationId);
  if (!existing) throw new DataKeyDestroyedError(verificationId);
  return existing;
}

export async function loadDataKey(db: DbOrTx, verificationId: string): Promise<Buffer | null> {
  const [row] = await db.select().from(dataKeys).where(eq(dataKeys.verificationId, verificationId));
  return row ? unwrapDataKey(row) : null;
}

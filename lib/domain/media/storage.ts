/**
 * Where media bytes live: encrypted in Postgres (AES-256-GCM, bound to the media id) under the verification's
 * own data key (lib/domain/personal-data/data-keys.ts), so erasing the verification's data key makes every copy of them
 * unreadable. The interface is small so an object store can replace it: put inside the caller's transaction,
 * get, delete. Rows written before data keys existed (`sealed_by = 'encryption_key'`) are still read, and moved
 * under a data key by lib/domain/retention/upgrade.ts.
 */
import { eq, sql } from 'drizzle-orm';
import { mediaBlobs } from '@/lib/db/schema';
import type { DbOrTx } from '@/lib/db/client';
import { aesGcmDecrypt, aesGcmEncrypt } from '../../core/crypto/secretbox';
import { keyRing, KeyUnavailableError } from '../../core/crypto/keyring';
import { DataKeyDestroyedError, ensureDataKey, unwrapDataKey, type DataKeyRow } from '../personal-data/data-keys';

const aad = (mediaId: string) => `media:${mediaId}`;

/** A stored blob with what is needed to open it: its verification's wrapped data key (null once destroyed). */
export type SealedMedia = {
  mediaId: string;
  verificationId: string;
  ciphertext: Buffer;
  sealedBy: 'data_key' | 'encryption_key';
  dataKey: DataKeyRow | null;
};

/** Encrypts bytes for a medium under its verification's data key. */
export const sealMediaBytes = (mediaId: string, dataKey: Buffer, bytes: Uint8Array) =>
  aesGcmEncrypt(bytes, aad(mediaId), dataKey);

/** Decrypts a stored blob; throws DataKeyDestroyedError when its verification's data key is gone. */
export function openMedia(m: SealedMedia): Buffer {
  if (m.sealedBy === 'data_key') {
    if (!m.dataKey) throw new DataKeyDestroyedError(m.verificationId);
    return aesGcmDecrypt(m.ciphertext, aad(m.mediaId), unwrapDataKey(m.dataKey));
  }
  // Written before data keys: directly under ENCRYPTION_KEY, without a key id (whichever accepted key opens it).
  const ring = keyRing();
  for (const kek of [ring.primary, ...ring.accepted.values()]) {
    try {
      return aesGcmDecrypt(m.ciphertext, aad(m.mediaId), kek.key);
    } catch {
      /* not this key */
    }
  }
  throw new KeyUnavailableError('(no key id)');
}

/** The stored blob of a medium with its verification's data key, in one query. */
export async function readSealedMedia(db: DbOrTx, mediaId: string): Promise<SealedMedia | null> {
  const rows = await db.execute<{
    media_id: string;
    verification_id: string;
    ciphertext: Buffer;
    sealed_by: SealedMedia['sealedBy'];
    kek_id: string | null;
    wrapped: Buffer | null;
  }>(sql`
    select b.media_id, m.verification_id, b.ciphertext, b.sealed_by, k.kek_id, k.wrapped
    from media_blobs b
    join media m on m.id = b.media_id
    left join data_keys k on k.verification_id = m.verification_id
    where b.media_id = ${mediaId}`);
  const r = Array.from(rows)[0];
  if (!r) return null;
  return {
    mediaId: r.media_id,
    verificationId: r.verification_id,
    ciphertext: r.ciphertext,
    sealedBy: r.sealed_by,
    dataKey: r.kek_id && r.wrapped ? { verificationId: r.verification_id, kekId: r.kek_id, wrapped: r.wrapped } : null,
  };
}

export const mediaStore = {
  /** Stores the bytes of a medium whose row the caller inserted (in its transaction). */
  async put(db: DbOrTx, mediaId: string, bytes: Uint8Array) {
    const rows = await db.execute<{ verification_id: string }>(
      sql`select verification_id from media where id = ${mediaId}`,
    );
    const verificationId = Array.from(rows)[0]?.verification_id;
    if (!verificationId) throw new Error(`media ${mediaId}: no such row`);
    const key = await ensureDataKey(db, verificationId);
    await db
      .insert(mediaBlobs)
      .values({ mediaId, ciphertext: sealMediaBytes(mediaId, key, bytes), sealedBy: 'data_key' });
  },
  /** The bytes, or null when none are stored (never uploaded, deleted, or its data key destroyed by an erasure). */
  async get(db: DbOrTx, mediaId: string): Promise<Buffer | null> {
    const m = await readSealedMedia(db, mediaId);
    if (!m) return null;
    try {
      return openMedia(m);
    } catch (e) {
      if (e instanceof DataKeyDestroyedError) return null;
      throw e;
    }
  },
  async delete(db: DbOrTx, mediaId: string) {
    await db.delete(mediaBlobs).where(eq(mediaBlobs.mediaId, mediaId));
  },
};

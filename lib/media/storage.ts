/**
 * Where media bytes live: encrypted (AES-256-GCM, bound to the media id) in Postgres. The interface is
 * small so an object store can replace it: put inside the caller's transaction, get, delete.
 */
import { eq } from 'drizzle-orm';
import { mediaBlobs } from '@/db/schema';
import type { DbOrTx } from '@/db/client';
import { decryptBytes, encryptBytes } from '../crypto/secretbox';

const aad = (mediaId: string) => `media:${mediaId}`;

export const mediaStore = {
  async put(db: DbOrTx, mediaId: string, bytes: Uint8Array) {
    await db.insert(mediaBlobs).values({ mediaId, ciphertext: encryptBytes(bytes, aad(mediaId)) });
  },
  async get(db: DbOrTx, mediaId: string): Promise<Buffer | null> {
    const [row] = await db.select().from(mediaBlobs).where(eq(mediaBlobs.mediaId, mediaId));
    return row ? decryptBytes(row.ciphertext, aad(mediaId)) : null;
  },
  async delete(db: DbOrTx, mediaId: string) {
    await db.delete(mediaBlobs).where(eq(mediaBlobs.mediaId, mediaId));
  },
};

/**
 * The transition to a new face description (migration 0007): faces stored with an older model keep their vector
 * in `legacy_embedding` and have no `embedding`, so they take no part in duplicate search or blocklist matching.
 * reembedFaces() describes each of them again from the newest stored selfie of its verification; a face whose
 * selfie is gone (media retention) cannot be re-described and stays out, counted in `unavailable`.
 * Idempotent and safe to interrupt: each row is updated on its own, only while its embedding is still null.
 */
import { and, desc, eq, isNull, isNotNull } from 'drizzle-orm';
import type { Db } from '@/lib/db/client';
import { blocklistEntries, faceEmbeddings, media } from '@/lib/db/schema';
import { mediaStore } from './storage';
import type { Analysis } from './types';

export type Analyze = (bytes: Uint8Array, kind: 'selfie' | 'document') => Promise<Analysis>;
export type ReembedReport = {
  face_embeddings: { reembedded: number; unavailable: number };
  blocklist_entries: { reembedded: number; unavailable: number };
};

async function newestSelfieEmbedding(db: Db, verificationId: string, analyze: Analyze): Promise<number[] | null> {
  const rows = await db
    .select({ id: media.id })
    .from(media)
    .where(and(eq(media.verificationId, verificationId), eq(media.type, 'selfie')))
    .orderBy(desc(media.createdAt));
  for (const r of rows) {
    const bytes = await mediaStore.get(db, r.id);
    if (!bytes) continue;
    const a = await analyze(bytes, 'selfie');
    const e = a.faces[0]?.embedding;
    if (e) return e;
  }
  return null;
}

export async function reembedFaces(db: Db, analyze: Analyze): Promise<ReembedReport> {
  const report: ReembedReport = {
    face_embeddings: { reembedded: 0, unavailable: 0 },
    blocklist_entries: { reembedded: 0, unavailable: 0 },
  };
  const faces = await db
    .select({ id: faceEmbeddings.verificationId })
    .from(faceEmbeddings)
    .where(and(isNull(faceEmbeddings.embedding), isNotNull(faceEmbeddings.legacyEmbedding)));
  for (const f of faces) {
    const e = await newestSelfieEmbedding(db, f.id, analyze);
    if (!e) {
      report.face_embeddings.unavailable++;
      continue;
    }
    await db
      .update(faceEmbeddings)
      .set({ embedding: e, legacyEmbedding: null })
      .where(and(eq(faceEmbeddings.verificationId, f.id), isNull(faceEmbeddings.embedding)));
    report.face_embeddings.reembedded++;
  }
  const blocked = await db
    .select({ id: blocklistEntries.id, verificationId: blocklistEntries.verificationId })
    .from(blocklistEntries)
    .where(and(isNull(blocklistEntries.embedding), isNotNull(blocklistEntries.legacyEmbedding)));
  for (const b of blocked) {
    const e = await newestSelfieEmbedding(db, b.verificationId, analyze);
    if (!e) {
      report.blocklist_entries.unavailable++;
      continue;
    }
    await db
      .update(blocklistEntries)
      .set({ embedding: e, legacyEmbedding: null })
      .where(and(eq(blocklistEntries.id, b.id), isNull(blocklistEntries.embedding)));
    report.blocklist_entries.reembedded++;
  }
  return report;
}

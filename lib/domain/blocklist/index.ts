/**
 * The workspace blocklist (docs/api.md "Duplicates"): faces an admin blocked. A later submission whose selfie matches
 * an entry at or above the workspace's duplicate threshold is declined `blocklist_match` (the pipeline's
 * search is `blocklistMatch` in lib/domain/duplicates, beside the duplicate search it shares a query with).
 * Entries are a deliberate record of their own: they outlive the verification's media.
 */
import { and, desc, eq } from 'drizzle-orm';
import { blocklistEntries, faceEmbeddings, media, verifications } from '@/lib/db/schema';
import type { Db, DbOrTx } from '@/lib/db/client';
import { DomainError, notFound, validationError } from '../../core/errors';
import { newId } from '../../core/ids';
import { audit } from '../audit/audit';
import { currentAnalysis } from '../media/current-analysis';
import { mediaStore } from '../media/storage';

/**
 * The verification's selfie face: its pipeline embedding, or (test mode, never processed) its newest selfie's,
 * described again from the stored bytes if an older model described it (faces compare under one model only).
 */
async function faceOf(db: DbOrTx, verificationId: string): Promise<number[] | null> {
  const [fe] = await db
    .select({ embedding: faceEmbeddings.embedding })
    .from(faceEmbeddings)
    .where(eq(faceEmbeddings.verificationId, verificationId));
  if (fe) return fe.embedding;
  const [selfie] = await db
    .select()
    .from(media)
    .where(and(eq(media.verificationId, verificationId), eq(media.type, 'selfie')))
    .orderBy(desc(media.createdAt))
    .limit(1);
  if (!selfie) return null;
  const bytes = await mediaStore.get(db, selfie.id);
  if (!bytes) return null;
  try {
    return (await currentAnalysis(db, selfie, bytes)).faces?.[0]?.embedding ?? null;
  } catch (e) {
    // Bytes the current models cannot read (undecodable, too large): no usable face, like no selfie at all.
    if (e instanceof DomainError) return null;
    throw e;
  }
}

/** Adds a verification's selfie face to its workspace's blocklist (`npm run ops -- blocklist:add`, the admin case view). */
export async function addToBlocklist(
  db: Db,
  input: { verificationId: string; actor: string; note?: string | null; requestId?: string },
) {
  const [v] = await db.select().from(verifications).where(eq(verifications.id, input.verificationId));
  if (!v) throw notFound('Verification');
  const embedding = await faceOf(db, v.id);
  if (!embedding)
    throw validationError({ verification: ['No usable face.'] }, 'That verification has no selfie with a usable face.');
  const id = newId('blk');
  await db.transaction(async (tx) => {
    await tx.insert(blocklistEntries).values({
      id,
      workspaceId: v.workspaceId,
      mode: v.mode,
      verificationId: v.id,
      embedding,
      createdBy: input.actor,
    });
    await audit(tx, {
      workspaceId: v.workspaceId,
      verificationId: v.id,
      actor: input.actor,
      requestId: input.requestId,
      action: 'blocklist.added',
      data: { blocklist_entry: id, note: input.note ?? null },
    });
  });
  return { id, workspaceId: v.workspaceId, verificationId: v.id };
}

/** A workspace's entries, newest first (no embeddings: they are not for display). */
/** Removes an entry (`npm run ops -- blocklist:remove`, the admin area); later submissions are no longer matched against it. */
export async function removeFromBlocklist(db: Db, input: { id: string; actor: string; requestId?: string }) {
  return db.transaction(async (tx) => {
    const [row] = await tx.delete(blocklistEntries).where(eq(blocklistEntries.id, input.id)).returning({
      id: blocklistEntries.id,
      workspaceId: blocklistEntries.workspaceId,
      verificationId: blocklistEntries.verificationId,
    });
    if (!row) throw notFound('Blocklist entry');
    await audit(tx, {
      workspaceId: row.workspaceId,
      verificationId: row.verificationId,
      actor: input.actor,
      requestId: input.requestId,
      action: 'blocklist.removed',
      data: { blocklist_entry: row.id },
    });
    return row;
  });
}

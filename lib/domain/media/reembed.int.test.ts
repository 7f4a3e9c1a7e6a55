/**
 * The transition to the new face description (migration 0007): faces stored with the old model (1024-d, in
 * legacy_embedding) take no part in duplicate search until faces:reembed describes them again from their stored
 * selfie; a face whose selfie is gone stays out. An analysis made by an older model is made again before the
 * pipeline uses it.
 */
import { captureTokenHash } from '@/lib/domain/capture/auth';
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '@/lib/db/client';
import { blocklistEntries, faceEmbeddings, LEGACY_EMBEDDING_DIMENSIONS, media, verifications } from '@/lib/db/schema';
import { makeWorkspace, type TestWorkspace } from '@/test/helpers/factories';
import { consentedVerification, upload } from '@/test/helpers/upload';
import * as I from '@/test/helpers/images';
import { newId, randomToken, uuidv7 } from '@/lib/core/ids';
import { analysisPool } from './pool';
import { currentAnalysis } from './current-analysis';
import { mediaStore } from './storage';
import { ANALYSIS_VERSION } from './version';
import { findDuplicates, tuneSearch } from '../duplicates';
import { cosine } from '../faces/similarity';
import { reembedFaces } from './reembed';

const db = () => getDb();
const legacy = () => Array.from({ length: LEGACY_EMBEDDING_DIMENSIONS }, (_, i) => Math.sin(i + 1) / 22);

let w: TestWorkspace;
let withSelfie: string;
let withoutSelfie: string;
beforeAll(async () => {
  await analysisPool().ready();
  w = await makeWorkspace();
  // A verification whose selfie is stored, and one whose media is gone: both with an old-model face.
  withSelfie = await consentedVerification(w, w.liveSecret);
  expect((await upload(w, w.liveSecret, withSelfie, { type: 'selfie' }, I.astronaut())).status).toBe(201);
  withoutSelfie = uuidv7();
  await db()
    .insert(verifications)
    .values({
      id: withoutSelfie,
      workspaceId: w.workspace.id,
      mode: 'live',
      status: 'approved',
      flow: 'age',
      checkMethod: 'estimation',
      captureTokenHash: captureTokenHash(randomToken()),
    });
  for (const id of [withSelfie, withoutSelfie]) {
    await db().insert(faceEmbeddings).values({
      verificationId: id,
      workspaceId: w.workspace.id,
      mode: 'live',
      account: id,
      embedding: null,
      legacyEmbedding: legacy(),
    });
  }
  await db()
    .insert(blocklistEntries)
    .values({
      id: newId('blk'),
      workspaceId: w.workspace.id,
      mode: 'live',
      verificationId: withSelfie,
      embedding: null,
      legacyEmbedding: legacy(),
      createdBy: 'test',
    });
}, 120_000);

const search = async (embedding: number[]) =>
  db().transaction(async (tx) => {
    await tuneSearch(tx);
    return findDuplicates(tx, {
      workspaceId: w.workspace.id,
      mode: 'live',
      verificationId: uuidv7(),
      externalId: null,
      embedding,
      threshold: 0.9,
    });
  });

describe('faces:reembed', () => {
  it('a legacy face is out of duplicate search until it is described again from its stored selfie; one without media stays out', async () => {
    const probe = (await analysisPool().analyze(await I.blurred(I.astronaut(), 1), 'selfie')).faces[0].embedding!;
    expect((await search(probe)).duplicate_count).toBe(0);

    const report = await reembedFaces(db(), (b, k) => analysisPool().analyze(b, k));
    expect(report).toEqual({
      face_embeddings: { reembedded: 1, unavailable: 1 },
      blocklist_entries: { reembedded: 1, unavailable: 0 },
    });

    const [fe] = await db().select().from(faceEmbeddings).where(eq(faceEmbeddings.verificationId, withSelfie));
    expect(fe.embedding).toHaveLength(128);
    expect(fe.legacyEmbedding).toBeNull();
    expect(cosine(fe.embedding!, probe)).toBeGreaterThan(0.93);
    const found = await search(probe);
    expect(found.duplicates.map((d) => d.verification_id)).toEqual([withSelfie]);
    const [gone] = await db().select().from(faceEmbeddings).where(eq(faceEmbeddings.verificationId, withoutSelfie));
    expect([gone.embedding, gone.legacyEmbedding?.length]).toEqual([null, LEGACY_EMBEDDING_DIMENSIONS]);
    const [blk] = await db().select().from(blocklistEntries).where(eq(blocklistEntries.verificationId, withSelfie));
    expect(blk.embedding).toHaveLength(128);

    // Idempotent: nothing left to do but the face without media.
    expect(await reembedFaces(db(), (b, k) => analysisPool().analyze(b, k))).toEqual({
      face_embeddings: { reembedded: 0, unavailable: 1 },
      blocklist_entries: { reembedded: 0, unavailable: 0 },
    });
  }, 120_000);

  it('an analysis stored by an older model is made again from the stored bytes before use, and saved', async () => {
    const [m] = await db().select().from(media).where(eq(media.verificationId, withSelfie));
    const old = { ...(m.analysis as object), version: 'human-faceres-1', faces: [{ embedding: legacy(), age: 29 }] };
    await db().update(media).set({ analysis: old }).where(eq(media.id, m.id));
    const [row] = await db().select().from(media).where(eq(media.id, m.id));
    const a = await currentAnalysis(db(), row, (await mediaStore.get(db(), m.id))!);
    expect(a.version).toBe(ANALYSIS_VERSION);
    expect(a.faces[0].embedding).toHaveLength(128);
    const [saved] = await db().select().from(media).where(eq(media.id, m.id));
    expect((saved.analysis as { version: string }).version).toBe(ANALYSIS_VERSION);
  }, 60_000);
});

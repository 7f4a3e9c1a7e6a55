/**
 * Verifications holding everything a decided one holds — a stored photo under its data key, the photo's analysis
 * with a face embedding, the face in the duplicate search, a KYC result with a person's name and date of birth,
 * external_metadata, a webhook event — written through lib/ as the upload, pipeline and reviewer paths write
 * them, without running image analysis (the pipeline tests and the PostgreSQL 15 test do that end to end).
 */
import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { Db } from '@/lib/db/client';
import { EMBEDDING_DIMENSIONS, faceEmbeddings, media, verifications } from '@/lib/db/schema';
import { createVerification } from '@/lib/domain/verifications/create';
import { applyTransition } from '@/lib/domain/transitions/state-machine';
import { enqueueTransitionWebhook } from '@/lib/domain/webhooks/outbox';
import { mediaStore } from '@/lib/domain/media/storage';
import { newId } from '@/lib/core/ids';
import type { TestWorkspace } from './factories';

export const PERSON = { surname: 'ERIKSSON', given_names: 'ANNA MARIA', date_of_birth: '1974-08-12', sex: 'F' };
export const kycResult = () => ({
  decision: 'pass',
  person: { ...PERSON },
  document: {
    type: 'id_card',
    source: 'mrz',
    issuing_country: 'UTO',
    number_masked: '•••••02C3',
    expiry_date: '2031-04-15',
  },
  face_match: { similarity: 0.91, threshold: 0.66, match: true },
});

/** A random unit vector, as a face embedding is. */
export function randomEmbedding(dims = EMBEDDING_DIMENSIONS): number[] {
  const v = Array.from({ length: dims }, () => Math.random() * 2 - 1);
  const n = Math.hypot(...v);
  return v.map((x) => Math.round((x / n) * 1e6) / 1e6);
}

/** Bytes that stand for a photo, with a marker no other data can contain by chance. */
export const fakePhoto = () =>
  Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(2048), Buffer.from([0xff, 0xd9])]);

export type Held = { id: string; mediaId: string; embedding: number[]; photo: Buffer };

export async function heldVerification(
  db: Db,
  w: TestWorkspace,
  opts: {
    mode?: 'test' | 'live';
    decidedDaysAgo?: number | null;
    externalId?: string;
    metadata?: Record<string, unknown> | null;
    result?: Record<string, unknown>;
    photo?: Buffer;
    embedding?: number[];
  } = {},
): Promise<Held> {
  const mode = opts.mode ?? 'live';
  const { row } = await createVerification(db, {
    workspace: w.workspace,
    keyMode: mode,
    fields: {
      external_id: opts.externalId ?? `user-${Math.random().toString(36).slice(2, 8)}`,
      external_metadata: opts.metadata === undefined ? { plan: 'pro', email: 'anna@example.com' } : opts.metadata,
    },
    actor: 'key:test',
  });
  const embedding = opts.embedding ?? randomEmbedding();
  const photo = opts.photo ?? fakePhoto();
  const mediaId = newId('med');
  await db.transaction(async (tx) => {
    await tx.insert(media).values({
      id: mediaId,
      verificationId: row.id,
      type: 'selfie',
      contentType: 'image/jpeg',
      byteSize: photo.length,
      width: 640,
      height: 480,
      analysis: { width: 640, height: 480, faces: [{ box: [1, 2, 3, 4], age: 33, embedding }] },
    });
    await mediaStore.put(tx, mediaId, photo);
    await enqueueTransitionWebhook(
      tx,
      await applyTransition(tx, { verificationId: row.id, trigger: 'media_uploaded' }),
    );
  });
  if (opts.decidedDaysAgo === null) return { id: row.id, mediaId, embedding, photo };
  // As the pipeline decides: the face joins the duplicate search and the result is written with the decision.
  await db
    .update(verifications)
    .set({ status: 'submitted', attemptsUsed: 1, submittedAt: new Date() })
    .where(eq(verifications.id, row.id));
  await db.insert(faceEmbeddings).values({
    verificationId: row.id,
    workspaceId: row.workspaceId,
    mode,
    externalId: row.externalId,
    account: row.externalId ?? row.id,
    embedding,
  });
  await db.transaction(async (tx) =>
    enqueueTransitionWebhook(
      tx,
      await applyTransition(tx, {
        verificationId: row.id,
        trigger: 'pipeline_approve',
        patch: { result: opts.result ?? kycResult() },
      }),
    ),
  );
  const decided = new Date(Date.now() - (opts.decidedDaysAgo ?? 0) * 86_400_000);
  await db
    .update(verifications)
    .set({ completedAt: decided, statusChangedAt: decided })
    .where(eq(verifications.id, row.id));
  return { id: row.id, mediaId, embedding, photo };
}

/**
 * Active liveness for the hosted capture page: the server issues a random sequence of head poses with a
 * single-use nonce; the page sends one frame per pose; the server analyses the frames itself and records the
 * outcome, which the pipeline's liveness check reads (lib/domain/pipeline/checks/liveness.ts).
 *
 * A challenge passes when: the frames arrive within CHALLENGE_TTL_MS of the nonce; each shows exactly one usable
 * face; no frame was sent in an earlier challenge (same bytes, or the same picture re-encoded); the head moved
 * (the turns of the frames differ: a still photo held to the camera does not); each frame's pose is the one asked
 * at its step, in order; and every frame shows the same person.
 */
import crypto from 'node:crypto';
import { and, desc, eq, inArray, isNotNull, isNull, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '@/lib/db/client';
import { livenessChallenges, livenessFrames, type verifications } from '@/lib/db/schema';
import { DomainError } from '../../core/errors';
import { vectorLiteral } from '../duplicates';
import { randomToken } from '../../core/ids';
import type { Analysis } from '../media/types';
import { SELFIE } from '../media/thresholds';
import { cosine } from '../faces/similarity';
import { CHALLENGE_POSE_SIMILARITY, CHALLENGE_REPLAY_SIMILARITY } from '../thresholds/thresholds';
import type {
  ChallengeFailure,
  ChallengeFrame,
  ChallengeOutcome,
  ChallengeStep,
} from '../../db/schema/liveness-challenge';
import { poseOf, TURN_MIN } from '../media/pose';

/** From the nonce to the frames: the page needs a few seconds per pose. */
export const CHALLENGE_TTL_MS = 60_000;

type Verification = typeof verifications.$inferSelect;
export type Analyze = (bytes: Uint8Array, kind: 'selfie' | 'document') => Promise<Analysis>;

const sha256 = (b: Uint8Array | string) => crypto.createHash('sha256').update(b).digest('hex');

/** The two turns in random order, then looking straight (the selfie follows). */
export function randomSteps(rnd: () => number = () => crypto.randomInt(0, 2 ** 31) / 2 ** 31): ChallengeStep[] {
  const turns: ChallengeStep[] = rnd() < 0.5 ? ['left', 'right'] : ['right', 'left'];
  return [...turns, 'straight'];
}

export async function issueChallenge(db: Db, v: Verification, now = new Date()) {
  const nonce = randomToken();
  const id = `lch_${randomToken().slice(0, 26)}`;
  const steps = randomSteps();
  const expiresAt = new Date(now.getTime() + CHALLENGE_TTL_MS);
  await db
    .insert(livenessChallenges)
    .values({ id, verificationId: v.id, nonceSha256: sha256(nonce), steps, issuedAt: now, expiresAt });
  return { id, nonce, steps, issued_at: now.toISOString(), expires_at: expiresAt.toISOString(), turn_min: TURN_MIN };
}

/** The accessible alternative: the person cannot do the head turn; recorded so a reviewer checks the verification. */
export async function skipChallenge(db: Db, v: Verification, now = new Date()): Promise<ChallengeOutcome> {
  const id = `lch_${randomToken().slice(0, 26)}`;
  const outcome: ChallengeOutcome = {
    id,
    passed: false,
    skipped: true,
    failure: null,
    steps: [],
    issued_at: now.toISOString(),
    completed_at: now.toISOString(),
    frames: [],
  };
  await db.insert(livenessChallenges).values({
    id,
    verificationId: v.id,
    nonceSha256: sha256(randomToken()),
    steps: [],
    issuedAt: now,
    expiresAt: now,
    completedAt: now,
    outcome,
  });
  return outcome;
}

/**
 * Receives a challenge's frames (one per step, in order) with its nonce, once. Returns the outcome, also when the
 * challenge failed; refuses (DomainError) an unknown or used nonce and a wrong number of frames.
 */
export async function completeChallenge(
  db: Db,
  v: Verification,
  input: { challengeId: string; nonce: string; frames: Uint8Array[] },
  analyze: Analyze,
  now = new Date(),
): Promise<ChallengeOutcome> {
  const [c] = await db
    .select()
    .from(livenessChallenges)
    .where(and(eq(livenessChallenges.id, input.challengeId), eq(livenessChallenges.verificationId, v.id)));
  if (!c || c.nonceSha256 !== sha256(input.nonce))
    throw new DomainError('NOT_FOUND', 'No such challenge for this verification, or the nonce does not belong to it.');
  if (input.frames.length !== c.steps.length) {
    throw new DomainError('VALIDATION_ERROR', `The challenge has ${c.steps.length} steps: send one frame for each.`, {
      fields: { frames: [`Expected ${c.steps.length} frames.`] },
    });
  }
  // Single use: the first request to arrive claims it.
  const [claimed] = await db
    .update(livenessChallenges)
    .set({ completedAt: now })
    .where(and(eq(livenessChallenges.id, c.id), isNull(livenessChallenges.completedAt)))
    .returning({ id: livenessChallenges.id });
  if (!claimed)
    throw new DomainError('INVALID_STATUS', 'This challenge was already used: ask for a new one.', { status: 'used' });

  const frames: ChallengeFrame[] = [];
  const embeddings: (number[] | null)[] = [];
  const hashes = input.frames.map((f) => sha256(f));
  let failure: ChallengeFailure | null = now.getTime() > c.expiresAt.getTime() ? 'expired' : null;
  if (!failure) {
    for (const [i, bytes] of input.frames.entries()) {
      let face = null;
      try {
        const faces = (await analyze(bytes, 'selfie')).faces.filter((f) => f.score >= SELFIE.minFaceScore);
        face = faces.length === 1 ? faces[0] : null;
      } catch {
        face = null;
      }
      embeddings.push(face?.embedding ?? null);
      frames.push({
        step: c.steps[i],
        yaw: face?.turn ?? null,
        face_found: !!face?.embedding,
        similarity_to_first: null,
      });
    }
    const first = embeddings[0];
    frames.forEach((f, i) => {
      f.similarity_to_first = first && embeddings[i] ? Math.round(cosine(first, embeddings[i]!) * 10000) / 10000 : null;
    });
    failure = await judge(db, v, c.id, c.steps, frames, embeddings, hashes);
  }
  // The face the selfie must match: the frame looking straight at the camera.
  const straightFrame = embeddings[c.steps.indexOf('straight')] ?? null;
  const outcome: ChallengeOutcome = {
    id: c.id,
    passed: failure === null,
    failure,
    steps: c.steps,
    issued_at: c.issuedAt.toISOString(),
    completed_at: now.toISOString(),
    frames,
  };
  await db.transaction(async (tx) => {
    await tx
      .update(livenessChallenges)
      .set({ outcome, embedding: straightFrame })
      .where(eq(livenessChallenges.id, c.id));
    if (hashes.length && failure !== 'expired') {
      await tx.insert(livenessFrames).values(
        hashes.map((h, i) => ({
          challengeId: c.id,
          workspaceId: v.workspaceId,
          sha256: h,
          embedding: embeddings[i],
        })),
      );
    }
  });
  return outcome;
}

async function judge(
  db: Db,
  v: Verification,
  challengeId: string,
  steps: ChallengeStep[],
  frames: ChallengeFrame[],
  embeddings: (number[] | null)[],
  hashes: string[],
): Promise<ChallengeFailure | null> {
  if (frames.some((f) => !f.face_found)) return 'no_face';
  if (await replayed(db, v, hashes, embeddings as number[][])) return 'replayed_frames';
  const turns = frames.map((f) => f.yaw ?? 0);
  if (Math.max(...turns) - Math.min(...turns) < TURN_MIN) return 'still_image';
  if (frames.some((f, i) => poseOf(f.yaw) !== steps[i])) return 'pose_order';
  // Every turned frame against the frame looking straight: a turned face matches a frontal one less well than two
  // frontal photos do, so this uses the lower CHALLENGE_POSE_SIMILARITY; the selfie is held to the face-match
  // threshold against the straight frame by the pipeline.
  const straight = steps.indexOf('straight');
  for (let i = 0; i < embeddings.length; i++)
    if (i !== straight && cosine(embeddings[i]!, embeddings[straight]!) < CHALLENGE_POSE_SIMILARITY)
      return 'different_person';
  return null;
}

/**
 * A frame already received for another verification of the workspace: the same bytes, or the same picture
 * re-encoded (CHALLENGE_REPLAY_SIMILARITY). A retry within one verification is not a replay.
 */
async function replayed(db: Db, v: Verification, hashes: string[], embeddings: number[][]): Promise<boolean> {
  const workspaceId = v.workspaceId;
  const others = sql`${livenessFrames.challengeId} not in (select id from ${livenessChallenges} where ${livenessChallenges.verificationId} = ${v.id})`;
  const same = await db
    .select({ id: livenessFrames.challengeId })
    .from(livenessFrames)
    .where(and(eq(livenessFrames.workspaceId, workspaceId), inArray(livenessFrames.sha256, hashes), others))
    .limit(1);
  if (same.length) return true;
  for (const e of embeddings) {
    const q = vectorLiteral(e);
    const [near] = await db
      .select({ similarity: sql<number>`1 - (${livenessFrames.embedding} <=> ${q}::vector)` })
      .from(livenessFrames)
      .where(and(eq(livenessFrames.workspaceId, workspaceId), isNotNull(livenessFrames.embedding), others))
      .orderBy(sql`${livenessFrames.embedding} <=> ${q}::vector`)
      .limit(1);
    if (near && Number(near.similarity) >= CHALLENGE_REPLAY_SIMILARITY) return true;
  }
  return false;
}

/** The newest completed challenge of a verification, with the face its frames show. */
export async function latestChallenge(db: DbOrTx, verificationId: string) {
  const [c] = await db
    .select()
    .from(livenessChallenges)
    .where(and(eq(livenessChallenges.verificationId, verificationId), isNotNull(livenessChallenges.outcome)))
    .orderBy(desc(livenessChallenges.completedAt))
    .limit(1);
  return c ?? null;
}

import { index, jsonb, pgTable, text, vector } from 'drizzle-orm/pg-core';
import { ts } from './columns';
import { verifications } from './verifications';
import { EMBEDDING_DIMENSIONS } from './faces';
import type { ChallengeOutcome, ChallengeStep } from './liveness-challenge';

/**
 * Active liveness challenges of the hosted capture page (lib/domain/liveness/challenge.ts): a server-issued single-use
 * nonce (kept as its SHA-256), the random head poses asked for, and, once the frames are in, the outcome the server
 * measured and the description of the face they show (compared with the selfie by the pipeline).
 */
export const livenessChallenges = pgTable(
  'liveness_challenges',
  {
    id: text('id').primaryKey(),
    verificationId: text('verification_id')
      .notNull()
      .references(() => verifications.id),
    nonceSha256: text('nonce_sha256').notNull().unique(),
    steps: jsonb('steps').$type<ChallengeStep[]>().notNull(),
    issuedAt: ts('issued_at').notNull(),
    expiresAt: ts('expires_at').notNull(),
    /** set once, when the frames arrive: a nonce is used at most once */
    completedAt: ts('completed_at'),
    outcome: jsonb('outcome').$type<ChallengeOutcome>(),
    embedding: vector('embedding', { dimensions: EMBEDDING_DIMENSIONS }),
  },
  (t) => [index('liveness_challenges_verification_idx').on(t.verificationId, t.issuedAt)],
);

/** Every frame a challenge received, by its SHA-256 and face description: a frame sent again in another challenge is a replay. */
export const livenessFrames = pgTable(
  'liveness_frames',
  {
    challengeId: text('challenge_id')
      .notNull()
      .references(() => livenessChallenges.id),
    workspaceId: text('workspace_id').notNull(),
    sha256: text('sha256').notNull(),
    embedding: vector('embedding', { dimensions: EMBEDDING_DIMENSIONS }),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [index('liveness_frames_sha256_idx').on(t.sha256), index('liveness_frames_workspace_idx').on(t.workspaceId)],
);

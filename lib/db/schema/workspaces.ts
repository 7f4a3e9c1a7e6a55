import { boolean, index, integer, pgTable, real, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { ts } from './columns';
import { sql } from 'drizzle-orm';

/** The answers to an estimate that cannot decide (docs/api.md "Step-up to a document"). */
export const ESTIMATION_FALLBACKS = ['review', 'document'] as const;
export type EstimationFallback = (typeof ESTIMATION_FALLBACKS)[number];

export const workspaces = pgTable('workspaces', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  /** Public identifier sent as X-API-Key. */
  apiKey: text('api_key').notNull().unique(),
  flow: text('flow', { enum: ['age', 'kyc'] })
    .notNull()
    .default('age'),
  checkMethod: text('check_method', { enum: ['estimation', 'document_verification'] })
    .notNull()
    .default('estimation'),
  ageThreshold: integer('age_threshold').notNull().default(18),
  allowDuplicates: boolean('allow_duplicates').notNull().default(false),
  /** cosine similarity of the face description (lib/domain/thresholds/thresholds.ts, DEFAULT_DUPLICATE_THRESHOLD) */
  duplicateThreshold: real('duplicate_threshold').notNull().default(0.945),
  /** the hosted capture page asks for a head-turn challenge before the selfie, and the pipeline requires it passed */
  requireActiveLiveness: boolean('require_active_liveness').notNull().default(false),
  /**
   * Age / estimation: what an estimate that cannot decide (`refer`) leads to: `review` (a person decides) or
   * `document` (the verification asks for an ID document in the same session: docs/api.md "Step-up to a document").
   */
  estimationFallback: text('estimation_fallback', { enum: ESTIMATION_FALLBACKS }).notNull().default('review'),
  /** the hosted capture page offers a digital ID wallet (docs/wallet.md): `off` or `offer`; /v1 accepts wallet proofs either way */
  wallet: text('wallet', { enum: ['off', 'offer'] })
    .notNull()
    .default('off'),
  webhookUrl: text('webhook_url'),
  rateLimitPerMinute: integer('rate_limit_per_minute').notNull().default(60),
  /** Days the data of a decided verification is kept: 0 to 365, default 30 (lib/domain/retention/policy.ts; a CHECK in migration 0010). */
  mediaRetentionDays: integer('media_retention_days').notNull().default(30),
  enforceSignature: boolean('enforce_signature').notNull().default(true),
  allowPlaceholderSignature: boolean('allow_placeholder_signature').notNull().default(false),
  /** Signed requests must carry X-Request-Timestamp within 5 minutes, signed with them (docs/api.md "Request timestamps"). */
  requireRequestTimestamp: boolean('require_request_timestamp').notNull().default(false),
  /**
   * The origins that may frame the hosted capture page and receive its events (docs/sdks.md "Embedding the flow"):
   * `https://` origins, and loopback `http://` origins honoured for test-mode verifications only. Empty: never framed.
   */
  embedOrigins: text('embed_origins')
    .array()
    .notNull()
    .default(sql`'{}'::text[]`),
  createdAt: ts('created_at').notNull().defaultNow(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});

export type Workspace = typeof workspaces.$inferSelect;

export const secretKeys = pgTable(
  'secret_keys',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    mode: text('mode', { enum: ['test', 'live'] }).notNull(),
    /** AES-256-GCM ciphertext of the full secret (iv | tag | data, base64). Never the clear secret. */
    secretCiphertext: text('secret_ciphertext').notNull(),
    /** Last four characters, for recognising a key in listings. */
    lastFour: text('last_four').notNull(),
    isActive: boolean('is_active').notNull().default(false),
    createdAt: ts('created_at').notNull().defaultNow(),
    activatedAt: ts('activated_at'),
    /** When it last signed a request that was let in; written at most once a minute per key (lib/domain/auth/keys.ts). */
    lastUsedAt: ts('last_used_at'),
    deletedAt: ts('deleted_at'),
  },
  (t) => [
    index('secret_keys_workspace_idx').on(t.workspaceId),
    // Exactly one designated active key per workspace.
    uniqueIndex('secret_keys_one_active_idx')
      .on(t.workspaceId)
      .where(sql`${t.isActive} and ${t.deletedAt} is null`),
  ],
);

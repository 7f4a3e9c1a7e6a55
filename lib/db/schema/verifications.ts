import { customType, index, integer, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { ts } from './columns';
import { sql } from 'drizzle-orm';
import { workspaces } from './workspaces';

export const VERIFICATION_STATUSES = [
  'created',
  'started',
  'submitted',
  'resubmission_requested',
  'review',
  'approved',
  'declined',
  'abandoned',
  'expired',
] as const;
export type VerificationStatus = (typeof VERIFICATION_STATUSES)[number];

export const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => 'bytea' });

export const verifications = pgTable(
  'verifications',
  {
    /** A UUID (v7, so it also sorts by creation): webhooks call it `verification_id`, a UUID. */
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    mode: text('mode', { enum: ['test', 'live'] }).notNull(),
    status: text('status', { enum: VERIFICATION_STATUSES }).notNull().default('created'),
    flow: text('flow', { enum: ['age', 'kyc'] }).notNull(),
    checkMethod: text('check_method', { enum: ['estimation', 'document_verification'] }),
    externalId: text('external_id'),
    externalMetadata: jsonb('external_metadata'),
    /**
     * `external_metadata`'s own text as the request carried it (lib/core/json-raw.ts): what GET and webhooks return,
     * keys in the integrator's order and numbers to the digit (jsonb keeps neither). Null for rows from before.
     */
    externalMetadataRaw: text('external_metadata_raw'),
    /**
     * `external_metadata`'s text as sent, under the verification's data key (lib/domain/personal-data/personal.ts): written so
     * from the first write, so no copy on disk, in the write-ahead log or in a backup is readable once the key is
     * destroyed. The two columns above hold only what a version before it wrote, until lib/domain/retention/upgrade.ts
     * moves it here.
     */
    externalMetadataSealed: bytea('external_metadata_sealed'),
    /** Extension: where the hosted capture page sends the user back when it finishes (https only). */
    returnUrl: text('return_url'),
    /**
     * Extension: the capture page's language as the integrator asked for it, negotiated to one of the page's
     * languages at creation (lib/core/i18n, docs/capture-page.md "How the language is chosen"). Null: the browser decides.
     */
    locale: text('locale'),
    /**
     * The capture URL's token (256 random bits) is never stored in clear: its SHA-256 (hex) finds the
     * verification, and it is kept encrypted (AES-256-GCM under ENCRYPTION_KEY, bound to the verification's
     * id) only to show the `url` again. Tokens from before this column have no ciphertext: their url is null.
     */
    captureTokenHash: text('capture_token_hash').notNull().unique(),
    captureTokenCiphertext: text('capture_token_ciphertext'),
    attemptsUsed: integer('attempts_used').notNull().default(0),
    /**
     * Set when an age estimate could not decide and the workspace steps up to another proof (docs/api.md
     * "Step-up to a document"): from then on the verification needs, and is decided by, an ID document. Null
     * otherwise. (A digital-wallet step-up may add its own value.)
     */
    stepUp: text('step_up', { enum: ['document'] }),
    reason: text('reason'),
    /** The decision's outcome only; the personal fields of a result are in `result_sealed` (lib/domain/personal-data/result-fields.ts). */
    result: jsonb('result'),
    /** The personal fields of the result (names, date of birth, document number…), under the verification's data key. */
    resultSealed: bytea('result_sealed'),
    duplicateCheck: jsonb('duplicate_check'),
    idempotencyKey: text('idempotency_key'),
    idempotencyHash: text('idempotency_hash'),
    createdAt: ts('created_at').notNull().defaultNow(),
    startedAt: ts('started_at'),
    submittedAt: ts('submitted_at'),
    completedAt: ts('completed_at'),
    /** When the current status last changed; timers measure inactivity from it. */
    statusChangedAt: ts('status_changed_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
    /** When its photos, analyses, face embedding, data key and personal fields were erased (lib/domain/retention). */
    dataErasedAt: ts('data_erased_at'),
  },
  (t) => [
    index('verifications_workspace_idx').on(t.workspaceId, t.mode, t.createdAt),
    // Reconciliation (GET /v1/verifications, lib/domain/verifications/list.ts): what changed since a time, in (updated_at, id)
    // order, in a workspace and mode, and the same for one external_id (which also serves every lookup by
    // (workspace, mode, external_id) that verifications_external_idx served before it).
    index('verifications_sync_idx').on(t.workspaceId, t.mode, t.updatedAt, t.id),
    index('verifications_external_sync_idx').on(t.workspaceId, t.mode, t.externalId, t.updatedAt, t.id),
    index('verifications_timer_idx').on(t.status, t.statusChangedAt),
    uniqueIndex('verifications_idempotency_idx')
      .on(t.workspaceId, t.mode, t.idempotencyKey)
      .where(sql`${t.idempotencyKey} is not null`),
    // The admin area (measured by npm run bench:admin): the review queue, oldest first, a small partial index;
    index('verifications_review_queue_idx')
      .on(t.workspaceId, t.mode, t.statusChangedAt, t.id)
      .where(sql`${t.status} = 'review'`),
    // search, newest first by (created_at, id): a workspace's, a workspace's by status, everyone's (operators);
    index('verifications_ws_created_idx').on(t.workspaceId, t.createdAt, t.id),
    index('verifications_ws_status_created_idx').on(t.workspaceId, t.status, t.createdAt, t.id),
    index('verifications_created_idx').on(t.createdAt, t.id),
    // and an external_id across workspaces.
    index('verifications_external_id_idx').on(t.externalId),
    // The usage page (issue 15): decisions of a workspace and mode by day, with what the counts and the
    // median need in the index itself (an index-only scan over a month of 100,000 verifications).
    index('verifications_ws_completed_idx').on(t.workspaceId, t.mode, t.completedAt, t.status, t.reason, t.submittedAt),
    // The retention sweep: decided verifications whose data is still held, oldest decision first.
    index('verifications_retention_idx')
      .on(t.completedAt)
      .where(sql`${t.dataErasedAt} is null and ${t.completedAt} is not null`),
    // Results written before personal fields were sealed (lib/domain/retention/upgrade.ts seals them in the background).
    // external_metadata written in the clear by an earlier version (lib/domain/retention/upgrade.ts seals it).
    index('verifications_unsealed_metadata_idx')
      .on(t.id)
      .where(sql`${t.externalMetadata} is not null or ${t.externalMetadataRaw} is not null`),
    index('verifications_unsealed_result_idx')
      .on(t.id)
      .where(
        sql`${t.result} ? 'person' or (${t.result} -> 'document') ?| array['number_masked', 'expiry_date', 'issuing_country']`,
      ),
  ],
);

/** A verification as read from the database (what the domain passes around). */
export type VerificationRow = typeof verifications.$inferSelect;

export const media = pgTable(
  'media',
  {
    id: text('id').primaryKey(),
    verificationId: text('verification_id')
      .notNull()
      .references(() => verifications.id),
    type: text('type', { enum: ['selfie', 'document'] }).notNull(),
    side: text('side', { enum: ['front', 'back'] }),
    documentType: text('document_type', { enum: ['passport', 'id_card', 'driving_licence'] }),
    status: text('status', { enum: ['uploaded'] })
      .notNull()
      .default('uploaded'),
    contentType: text('content_type').notNull(),
    byteSize: integer('byte_size').notNull(),
    width: integer('width').notNull(),
    height: integer('height').notNull(),
    /** Face and pixel analysis of the accepted image, kept so the pipeline need not recompute it. */
    analysis: jsonb('analysis'),
    /** What the upload read from the side carrying the MRZ or barcode (lib/domain/documents/read.ts), as JSON sealed under the
     *  verification's data key (AAD `document_read:<media id>`): the pipeline decides from it without reading again. */
    readSealed: bytea('read_sealed'),
    /** how it arrived: the /v1 API, or the hosted capture page (where a workspace may require active liveness) */
    source: text('source', { enum: ['api', 'capture'] })
      .notNull()
      .default('api'),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [index('media_verification_idx').on(t.verificationId, t.type, t.side, t.createdAt)],
);

/**
 * Encrypted media bytes (AES-256-GCM, bound to the media id), behind lib/domain/media/storage.ts: under the
 * verification's own data key (`data_key`), or, written before data keys existed, under ENCRYPTION_KEY
 * itself (`encryption_key`, the column's default so that a server of the earlier version still labels its
 * rows right during a rolling deploy; the retention sweep moves them under a data key).
 */
export const mediaBlobs = pgTable(
  'media_blobs',
  {
    mediaId: text('media_id')
      .primaryKey()
      .references(() => media.id, { onDelete: 'cascade' }),
    ciphertext: bytea('ciphertext').notNull(),
    sealedBy: text('sealed_by', { enum: ['data_key', 'encryption_key'] })
      .notNull()
      .default('encryption_key'),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [
    index('media_blobs_legacy_idx')
      .on(t.mediaId)
      .where(sql`${t.sealedBy} = 'encryption_key'`),
  ],
);

/** Work for the decision pipeline, written in the same transaction as the submit (outbox). */
export const pipelineJobs = pgTable(
  'pipeline_jobs',
  {
    id: text('id').primaryKey(),
    verificationId: text('verification_id')
      .notNull()
      .references(() => verifications.id),
    attempt: integer('attempt').notNull(),
    /** The media this attempt submitted: the newest upload of each required kind. */
    mediaIds: jsonb('media_ids').$type<Record<string, string>>().notNull(),
    status: text('status', { enum: ['pending', 'running', 'done', 'failed'] })
      .notNull()
      .default('pending'),
    runAfter: ts('run_after').notNull().defaultNow(),
    /** How many times a runner took the job (a crash mid-job leaves it running until its lease ends). */
    tries: integer('tries').notNull().default(0),
    leaseUntil: ts('lease_until'),
    lastError: text('last_error'),
    /** W3C traceparent of the span that wrote the job (the submit), when tracing is on: the job continues that trace. */
    traceparent: text('traceparent'),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    index('pipeline_jobs_due_idx').on(t.status, t.runAfter),
    uniqueIndex('pipeline_jobs_verification_attempt_idx').on(t.verificationId, t.attempt),
  ],
);

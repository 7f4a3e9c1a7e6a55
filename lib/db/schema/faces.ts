import { index, pgTable, text, vector } from 'drizzle-orm/pg-core';
import { ts } from './columns';
import { verifications } from './verifications';
import { workspaces } from './workspaces';

/**
 * The face description (lib/domain/faces/describe.ts: face-api's port of dlib's ResNet on an aligned chip) is a 128-d
 * unit vector, compared by cosine similarity. Faces stored before it (Human's faceres, 1024-d) are kept in
 * `legacy_embedding` until `npm run ops -- faces:reembed` describes them again from their stored selfie; until
 * then they take no part in duplicate search or blocklist matching (the two spaces cannot be compared).
 */
export const EMBEDDING_DIMENSIONS = 128;
export const LEGACY_EMBEDDING_DIMENSIONS = 1024;

/**
 * The selfie face of each processed submission (the latest attempt's), for duplicate search within a
 * workspace and mode. `account` is the external_id, or the verification id when there is none
 * (docs/api.md "Duplicates": a verification without external_id is an account of its own).
 */
export const faceEmbeddings = pgTable(
  'face_embeddings',
  {
    verificationId: text('verification_id')
      .primaryKey()
      .references(() => verifications.id),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    mode: text('mode', { enum: ['test', 'live'] }).notNull(),
    externalId: text('external_id'),
    account: text('account').notNull(),
    /** null while a legacy face waits to be described again */
    embedding: vector('embedding', { dimensions: EMBEDDING_DIMENSIONS }),
    legacyEmbedding: vector('legacy_embedding', { dimensions: LEGACY_EMBEDDING_DIMENSIONS }),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [
    // m 32 / ef_construction 128 (pgvector's defaults: 16 / 64): measured by npm run bench:pipeline, the
    // denser graph finds 0.97 of the duplicates at ef_search 100 on 100k faces, where 16/64 needed 400.
    index('face_embeddings_hnsw_idx')
      .using('hnsw', t.embedding.op('vector_cosine_ops'))
      .with({ m: 32, ef_construction: 128 }),
    index('face_embeddings_scope_idx').on(t.workspaceId, t.mode),
  ],
);

/** Faces an admin blocked: a later submission matching one above the workspace threshold is declined. */
export const blocklistEntries = pgTable(
  'blocklist_entries',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    mode: text('mode', { enum: ['test', 'live'] }).notNull(),
    verificationId: text('verification_id')
      .notNull()
      .references(() => verifications.id),
    /** null while a legacy face waits to be described again */
    embedding: vector('embedding', { dimensions: EMBEDDING_DIMENSIONS }),
    legacyEmbedding: vector('legacy_embedding', { dimensions: LEGACY_EMBEDDING_DIMENSIONS }),
    createdBy: text('created_by').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [index('blocklist_scope_idx').on(t.workspaceId, t.mode)],
);

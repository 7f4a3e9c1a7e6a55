import { boolean, index, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { ts } from './columns';
import { bytea, verifications } from './verifications';
import { workspaces } from './workspaces';

/**
 * Each verification's own data key (AES-256), wrapped by ENCRYPTION_KEY (`kek_id` names which). Its photos
 * and the personal fields of its result are encrypted under it; erasure deletes the row, after which every
 * copy of those ciphertexts is noise. Created on first need (the first upload, a sealed result).
 */
export const dataKeys = pgTable(
  'data_keys',
  {
    verificationId: text('verification_id')
      .primaryKey()
      .references(() => verifications.id),
    kekId: text('kek_id').notNull(),
    wrapped: bytea('wrapped').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [index('data_keys_kek_idx').on(t.kekId)],
);

/**
 * The Ed25519 key that signs erasure receipts: the public key is published at /receipt-keys with its id, the
 * private key is stored wrapped by ENCRYPTION_KEY (`v1.<key id>.…`). One is active; older ones stay
 * published, so receipts they signed still verify.
 */
export const signingKeys = pgTable(
  'signing_keys',
  {
    id: text('id').primaryKey(),
    algorithm: text('algorithm', { enum: ['Ed25519'] }).notNull(),
    /** The raw 32-byte public key, base64url (a JWK's `x`). */
    publicKey: text('public_key').notNull(),
    /** PKCS#8 DER of the private key, sealed by ENCRYPTION_KEY. */
    privateKeySealed: text('private_key_sealed').notNull(),
    active: boolean('active').notNull().default(true),
    createdAt: ts('created_at').notNull().defaultNow(),
    retiredAt: ts('retired_at'),
  },
  (t) => [
    uniqueIndex('signing_keys_one_active_idx')
      .on(t.active)
      .where(sql`${t.active}`),
  ],
);

/** A signed record of one erasure: the exact bytes signed (`payload`, canonical JSON) and the signature. */
export const erasureReceipts = pgTable(
  'erasure_receipts',
  {
    id: text('id').primaryKey(),
    verificationId: text('verification_id')
      .notNull()
      .unique()
      .references(() => verifications.id),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    trigger: text('trigger', { enum: ['retention', 'request'] }).notNull(),
    keyId: text('key_id').notNull(),
    payload: text('payload').notNull(),
    signature: text('signature').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [index('erasure_receipts_workspace_idx').on(t.workspaceId, t.createdAt)],
);

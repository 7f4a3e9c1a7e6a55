import { boolean, integer, pgTable, serial, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { ts } from './columns';
import { sql } from 'drizzle-orm';
import { verifications } from './verifications';


export const consentVersions = pgTable(
  'consent_versions',
  {
    id: serial('id').primaryKey(),
    version: text('version').notNull(),
    /** The exact text, as published; served byte for byte. */
    text: text('text').notNull(),
    textSha256: text('text_sha256').notNull(),
    isActive: boolean('is_active').notNull().default(false),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [uniqueIndex('consent_versions_one_active_idx').on(t.isActive).where(sql`${t.isActive}`)],
);

export const consentRecords = pgTable(
  'consent_records',
  {
    id: text('id').primaryKey(),
    verificationId: text('verification_id')
      .notNull()
      .references(() => verifications.id),
    consentVersionId: integer('consent_version_id')
      .notNull()
      .references(() => consentVersions.id),
    version: text('version').notNull(),
    textSha256: text('text_sha256').notNull(),
    acceptedAt: ts('accepted_at').notNull().defaultNow(),
  },
  // Acceptance is idempotent: one record per verification and version, whatever the concurrency.
  (t) => [uniqueIndex('consent_records_verification_version_idx').on(t.verificationId, t.consentVersionId)],
);

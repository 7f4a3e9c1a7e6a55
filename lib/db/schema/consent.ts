import { boolean, integer, pgTable, primaryKey, serial, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { ts } from './columns';
import { sql } from 'drizzle-orm';
import { verifications } from './verifications';

export const consentVersions = pgTable(
  'consent_versions',
  {
    id: serial('id').primaryKey(),
    version: text('version').notNull(),
    /** The exact English text, as published; served byte for byte (also in consent_texts, with the other languages). */
    text: text('text').notNull(),
    textSha256: text('text_sha256').notNull(),
    isActive: boolean('is_active').notNull().default(false),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('consent_versions_one_active_idx')
      .on(t.isActive)
      .where(sql`${t.isActive}`),
  ],
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
    /** The language of the text accepted (the one whose SHA-256 the acceptance sent): docs/api.md "Consent". */
    locale: text('locale').notNull().default('en'),
    acceptedAt: ts('accepted_at').notNull().defaultNow(),
  },
  // Acceptance is idempotent: one record per verification and version, whatever the concurrency.
  (t) => [uniqueIndex('consent_records_verification_version_idx').on(t.verificationId, t.consentVersionId)],
);

/**
 * A consent version's text in each of its languages (docs/api.md "Consent"), each with its own SHA-256 and served at
 * its own URL. English is always there; a version published with --allow-missing may lack others (the page then
 * shows the English text and says so). Written once, with the version, never changed.
 */
export const consentTexts = pgTable(
  'consent_texts',
  {
    consentVersionId: integer('consent_version_id')
      .notNull()
      .references(() => consentVersions.id),
    locale: text('locale').notNull(),
    text: text('text').notNull(),
    textSha256: text('text_sha256').notNull(),
  },
  (t) => [primaryKey({ columns: [t.consentVersionId, t.locale] })],
);

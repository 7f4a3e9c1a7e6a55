/**
 * Consent versions (global, one active) and their acceptance on a verification. A version carries its text in each
 * of the capture page's languages, each with its own SHA-256 and URL (docs/api.md "Consent"); acceptance names the
 * version and the hash of the text the person read, in whichever language, and records that language.
 */
import { and, asc, desc, eq, inArray } from 'drizzle-orm';
import { consentRecords, consentTexts, consentVersions, verifications, type VerificationStatus } from '@/lib/db/schema';
import { UPLOAD_STATUSES } from '../transitions/policy';
import type { DbOrTx } from '@/lib/db/client';
import { DomainError, notFound } from '../../core/errors';
import { sha256Hex } from '../../core/crypto/hash';
import { env } from '../../core/env';
import { newId } from '../../core/ids';
import { audit } from '../audit/audit';
import { DEFAULT_LOCALE, isLocale, LOCALES, type Locale } from '../../core/i18n/locales';
import { consentTextPath } from './paths';

export type ConsentVersionRow = typeof consentVersions.$inferSelect;
export type ConsentText = typeof consentTexts.$inferSelect;
/** A version with its texts, in the page's order of languages (English first). */
export type ConsentVersion = ConsentVersionRow & { texts: ConsentText[] };
export type ConsentRecord = typeof consentRecords.$inferSelect;

export { consentTextPath };
/** A text's public URL (lib/domain/consent/paths.ts). */
export const consentTextUrl = (id: number, locale: Locale = DEFAULT_LOCALE) =>
  `${env().BASE_URL}${consentTextPath(id, locale)}`;

/** The languages a version has, in the page's order. */
export const localesOf = (v: ConsentVersion): Locale[] => v.texts.map((t) => t.locale).filter(isLocale);

/** The text in `locale`, or the English one when the version lacks it (published with missing languages). */
export function textIn(v: ConsentVersion, locale: Locale = DEFAULT_LOCALE): ConsentText {
  return v.texts.find((t) => t.locale === locale) ?? v.texts.find((t) => t.locale === DEFAULT_LOCALE)!;
}

/** GET /v1/consent: the version, with the text of `locale` (English when it has none); `locale` and `locales` are extensions. */
export function publicConsentVersion(
  v: ConsentVersion,
  locale: Locale = DEFAULT_LOCALE,
  opts: { withText?: boolean } = {},
) {
  const t = textIn(v, locale);
  const shown = {
    id: v.id,
    version: v.version,
    text_sha256: t.textSha256,
    url: consentTextUrl(v.id, t.locale as Locale),
    locale: t.locale,
    locales: localesOf(v),
  };
  return opts.withText ? { ...shown, consent_text: t.text } : shown;
}

const order = (l: string) => LOCALES.indexOf(l as Locale);

async function withTexts(db: DbOrTx, rows: ConsentVersionRow[]): Promise<ConsentVersion[]> {
  if (rows.length === 0) return [];
  const texts = await db
    .select()
    .from(consentTexts)
    .where(
      inArray(
        consentTexts.consentVersionId,
        rows.map((r) => r.id),
      ),
    )
    .orderBy(asc(consentTexts.locale));
  return rows.map((r) => {
    const own = texts.filter((t) => t.consentVersionId === r.id).sort((a, b) => order(a.locale) - order(b.locale));
    // Every version has its English text in consent_texts (migration 0017, consent_languages_and_locale, copied the older ones'); never without one.
    return {
      ...r,
      texts: own.length
        ? own
        : [{ consentVersionId: r.id, locale: DEFAULT_LOCALE, text: r.text, textSha256: r.textSha256 }],
    };
  });
}

export type PublishConsentInput = {
  /** The text per language (`en` required). */
  texts?: Partial<Record<string, string>>;
  /** English only (the form before languages): the same as `texts: { en: text }` with `allowMissing`. */
  text?: string;
  version: string;
  /** Publish although some of the page's languages have no text: the page shows those the English text, saying so. */
  allowMissing?: boolean;
  actor?: string;
};

/**
 * Publishes a new consent version; it becomes the only active one. Every language of the capture page is required
 * unless `allowMissing` (docs/capture-page.md "Consent in every language"); English always.
 */
export async function publishConsent(
  db: DbOrTx,
  input: PublishConsentInput,
): Promise<ConsentVersion & { missing: Locale[] }> {
  const version = input.version.trim();
  if (!version || version.length > 100)
    throw new DomainError('VALIDATION_ERROR', 'A version label of 1-100 characters is required.', {
      fields: { version: ['Required, 1-100 characters.'] },
    });
  const given = input.texts ?? { en: input.text ?? '' };
  const allowMissing = input.allowMissing ?? input.texts === undefined;
  const unknown = Object.keys(given).filter((l) => !isLocale(l));
  if (unknown.length) {
    throw new DomainError(
      'VALIDATION_ERROR',
      `Not a language of the capture page: ${unknown.join(', ')} (languages: ${LOCALES.join(', ')}).`,
      { fields: { texts: [`Unknown language: ${unknown.join(', ')}.`] } },
    );
  }
  const empty = Object.entries(given)
    .filter(([, t]) => !t?.trim())
    .map(([l]) => l);
  if (!given.en?.trim())
    throw new DomainError('VALIDATION_ERROR', 'The English consent text is required.', {
      fields: { text: ['Required: the English text.'] },
    });
  if (empty.length)
    throw new DomainError('VALIDATION_ERROR', `The consent text is empty for: ${empty.join(', ')}.`, {
      fields: { texts: [`Empty: ${empty.join(', ')}.`] },
    });
  const missing = LOCALES.filter((l) => !(l in given));
  if (missing.length && !allowMissing) {
    throw new DomainError(
      'VALIDATION_ERROR',
      `The consent text is missing for ${missing.join(', ')}. Publish every language of the capture page, or allow missing ones (the page then shows those the English text, saying so).`,
      { fields: { texts: [`Missing: ${missing.join(', ')}.`] }, missing_locales: missing },
    );
  }
  const texts = LOCALES.filter((l) => l in given).map((locale) => {
    const text = given[locale]!;
    return { locale, text, textSha256: sha256Hex(Buffer.from(text, 'utf8')) };
  });
  const en = texts.find((t) => t.locale === DEFAULT_LOCALE)!;
  return db.transaction(async (tx) => {
    await tx.update(consentVersions).set({ isActive: false }).where(eq(consentVersions.isActive, true));
    const [row] = await tx
      .insert(consentVersions)
      .values({ version, text: en.text, textSha256: en.textSha256, isActive: true })
      .returning();
    const rows = await tx
      .insert(consentTexts)
      .values(texts.map((t) => ({ consentVersionId: row.id, ...t })))
      .returning();
    await audit(tx, {
      actor: input.actor ?? 'operator',
      action: 'consent.published',
      data: {
        id: row.id,
        version,
        text_sha256: row.textSha256,
        texts: Object.fromEntries(texts.map((t) => [t.locale, t.textSha256])),
        missing_locales: missing,
      },
    });
    return { ...row, texts: rows.sort((a, b) => order(a.locale) - order(b.locale)), missing };
  });
}

export async function getActiveConsent(db: DbOrTx): Promise<ConsentVersion | undefined> {
  const rows = await db.select().from(consentVersions).where(eq(consentVersions.isActive, true));
  return (await withTexts(db, rows))[0];
}

export async function getActiveConsentOrThrow(db: DbOrTx): Promise<ConsentVersion> {
  const row = await getActiveConsent(db);
  if (!row) throw notFound('Active consent version (an operator must publish one)');
  return row;
}

/** One language's text of a version (the public text URLs). */
export async function getConsentText(db: DbOrTx, id: number, locale: Locale): Promise<ConsentText | undefined> {
  const [row] = await db
    .select()
    .from(consentTexts)
    .where(and(eq(consentTexts.consentVersionId, id), eq(consentTexts.locale, locale)));
  return row;
}

/** Every version, newest first, with its texts (the admin area's history). */
export async function listConsentVersions(db: DbOrTx): Promise<ConsentVersion[]> {
  return withTexts(db, await db.select().from(consentVersions).orderBy(desc(consentVersions.id)));
}

/** The latest acceptance on a verification. */
export async function getConsentRecord(db: DbOrTx, verificationId: string): Promise<ConsentRecord | undefined> {
  const [row] = await db
    .select()
    .from(consentRecords)
    .where(eq(consentRecords.verificationId, verificationId))
    .orderBy(desc(consentRecords.acceptedAt))
    .limit(1);
  return row;
}

export type AcceptConsentInput =
  | { shape: 'id'; consentVersionId: number; textSha256: string }
  | { shape: 'label'; consentVersion: string; accepted: boolean };

/**
 * Records acceptance of the active consent version: the hash names the text read, in any of the version's languages,
 * and the record keeps that language (the label shape names no text: it stands for the English one). Idempotent:
 * the same version again returns the existing record; concurrent identical acceptances leave exactly one (unique
 * index + ON CONFLICT).
 */
export async function acceptConsent(
  db: DbOrTx,
  {
    verification,
    acceptance: input,
    actor,
    requestId,
  }: {
    verification: { id: string; workspaceId: string; status: VerificationStatus };
    acceptance: AcceptConsentInput;
    actor: string;
    requestId?: string;
  },
): Promise<ConsentRecord> {
  const active = await getActiveConsentOrThrow(db);
  let accepted = textIn(active, DEFAULT_LOCALE);
  if (input.shape === 'id') {
    if (input.consentVersionId !== active.id) {
      throw new DomainError(
        'CONSENT_VERSION_INACTIVE',
        'That consent version is not the active one; fetch GET /v1/consent.',
        {
          active_version_id: active.id,
        },
      );
    }
    const read = active.texts.find((t) => t.textSha256 === input.textSha256.toLowerCase());
    if (!read) {
      throw new DomainError(
        'CONSENT_SHA256_MISMATCH',
        'text_sha256 does not match the active consent text in any of its languages.',
        {
          expected_version_id: active.id,
        },
      );
    }
    accepted = read;
  } else {
    if (input.consentVersion !== active.version) {
      throw new DomainError(
        'CONSENT_VERSION_INACTIVE',
        'That consent version is not the active one; fetch GET /v1/consent.',
        {
          active_version: active.version,
        },
      );
    }
    if (input.accepted !== true) {
      throw new DomainError('VALIDATION_ERROR', 'Consent must be accepted to proceed.', {
        fields: { accepted: ['Must be true.'] },
      });
    }
  }

  const existing = await findRecord(db, verification.id, active.id);
  if (existing) return existing;
  // Consent can be given while media can still be uploaded.
  if (!UPLOAD_STATUSES.has(verification.status)) {
    throw new DomainError('INVALID_STATUS', `Consent cannot be given in status ${verification.status}.`, {
      status: verification.status,
    });
  }
  // The record and its audit entry together (a database lost between the two left a record without one).
  const inserted = await db.transaction(async (tx) => {
    const rows = await tx
      .insert(consentRecords)
      .values({
        id: newId('con'),
        verificationId: verification.id,
        consentVersionId: active.id,
        version: active.version,
        textSha256: accepted.textSha256,
        locale: accepted.locale,
      })
      .onConflictDoNothing()
      .returning();
    if (rows.length > 0) {
      // The verification changed (GET shows the consent): reconciliation lists it by updated_at.
      await tx
        .update(verifications)
        .set({ updatedAt: rows[0].acceptedAt })
        .where(eq(verifications.id, verification.id));
      await audit(tx, {
        workspaceId: verification.workspaceId,
        verificationId: verification.id,
        actor,
        requestId,
        action: 'consent.accepted',
        data: { consent_version_id: active.id, version: active.version, locale: accepted.locale },
      });
    }
    return rows;
  });
  if (inserted.length > 0) return inserted[0];
  return (await findRecord(db, verification.id, active.id))!;
}

async function findRecord(db: DbOrTx, verificationId: string, versionId: number) {
  const [row] = await db
    .select()
    .from(consentRecords)
    .where(and(eq(consentRecords.verificationId, verificationId), eq(consentRecords.consentVersionId, versionId)));
  return row;
}

/** Both response shapes of docs/api.md: `consent` and the flat consent_* fields. */
export function consentFields(rec: ConsentRecord | undefined) {
  return {
    // `locale` (extension): the language of the text accepted.
    consent: rec
      ? {
          version_id: rec.consentVersionId,
          version: rec.version,
          accepted_at: rec.acceptedAt.toISOString(),
          locale: rec.locale,
        }
      : null,
    consent_accepted: !!rec,
    consent_version: rec?.version ?? null,
    consented_at: rec?.acceptedAt.toISOString() ?? null,
  };
}

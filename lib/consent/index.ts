/** Consent versions (global, one active) and their acceptance on a verification. */
import { and, desc, eq } from 'drizzle-orm';
import { consentRecords, consentVersions, verifications, type VerificationStatus } from '@/db/schema';
import { CONSENT_STATUSES } from '../verifications/policy';
import type { DbOrTx } from '@/db/client';
import { DomainError, notFound } from '../errors';
import { sha256Hex } from '../crypto/hash';
import { env } from '../env';
import { newId } from '../ids';
import { audit } from '../audit';

export type ConsentVersion = typeof consentVersions.$inferSelect;
export type ConsentRecord = typeof consentRecords.$inferSelect;

export const consentTextUrl = (id: number) => `${env().BASE_URL}/consent/${id}.txt`;

export function publicConsentVersion(v: ConsentVersion) {
  return { id: v.id, version: v.version, text_sha256: v.textSha256, url: consentTextUrl(v.id) };
}

/** Publishes a new consent text; it becomes the only active version. */
export async function publishConsent(db: DbOrTx, input: { text: string; version: string; actor?: string }) {
  const version = input.version.trim();
  if (!version || version.length > 100) throw new DomainError('VALIDATION_ERROR', 'A version label of 1-100 characters is required.', { fields: { version: ['Required, 1-100 characters.'] } });
  if (!input.text.trim()) throw new DomainError('VALIDATION_ERROR', 'The consent text is empty.', { fields: { text: ['Required.'] } });
  return db.transaction(async (tx) => {
    await tx.update(consentVersions).set({ isActive: false }).where(eq(consentVersions.isActive, true));
    const [row] = await tx
      .insert(consentVersions)
      .values({ version, text: input.text, textSha256: sha256Hex(Buffer.from(input.text, 'utf8')), isActive: true })
      .returning();
    await audit(tx, { actor: input.actor ?? 'operator', action: 'consent.published', data: { id: row.id, version, text_sha256: row.textSha256 } });
    return row;
  });
}

export async function getActiveConsent(db: DbOrTx): Promise<ConsentVersion | undefined> {
  const [row] = await db.select().from(consentVersions).where(eq(consentVersions.isActive, true));
  return row;
}

export async function getActiveConsentOrThrow(db: DbOrTx): Promise<ConsentVersion> {
  const row = await getActiveConsent(db);
  if (!row) throw notFound('Active consent version (an operator must publish one)');
  return row;
}

export async function getConsentVersion(db: DbOrTx, id: number) {
  const [row] = await db.select().from(consentVersions).where(eq(consentVersions.id, id));
  return row;
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
 * Records acceptance of the active consent version. Idempotent: the same version again returns the
 * existing record; concurrent identical acceptances leave exactly one (unique index + ON CONFLICT).
 */
export async function acceptConsent(
  db: DbOrTx,
  { verification, acceptance: input, actor, requestId }: {
    verification: { id: string; workspaceId: string; status: VerificationStatus };
    acceptance: AcceptConsentInput;
    actor: string;
    requestId?: string;
  },
): Promise<ConsentRecord> {
  const active = await getActiveConsentOrThrow(db);
  if (input.shape === 'id') {
    if (input.consentVersionId !== active.id) {
      throw new DomainError('CONSENT_VERSION_INACTIVE', 'That consent version is not the active one; fetch GET /v1/consent.', {
        active_version_id: active.id,
      });
    }
    if (input.textSha256.toLowerCase() !== active.textSha256) {
      throw new DomainError('CONSENT_SHA256_MISMATCH', 'text_sha256 does not match the active consent text.', {
        expected_version_id: active.id,
      });
    }
  } else {
    if (input.consentVersion !== active.version) {
      throw new DomainError('CONSENT_VERSION_INACTIVE', 'That consent version is not the active one; fetch GET /v1/consent.', {
        active_version: active.version,
      });
    }
    if (input.accepted !== true) {
      throw new DomainError('VALIDATION_ERROR', 'Consent must be accepted to proceed.', { fields: { accepted: ['Must be true.'] } });
    }
  }

  const existing = await findRecord(db, verification.id, active.id);
  if (existing) return existing;
  if (!CONSENT_STATUSES.has(verification.status)) {
    throw new DomainError('INVALID_STATUS', `Consent cannot be given in status ${verification.status}.`, {
      status: verification.status,
    });
  }
  // The record and its audit entry together (a database lost between the two left a record without one).
  const inserted = await db.transaction(async (tx) => {
    const rows = await tx
      .insert(consentRecords)
      .values({ id: newId('con'), verificationId: verification.id, consentVersionId: active.id, version: active.version, textSha256: active.textSha256 })
      .onConflictDoNothing()
      .returning();
    if (rows.length > 0) {
      // The verification changed (GET shows the consent): reconciliation lists it by updated_at.
      await tx.update(verifications).set({ updatedAt: rows[0].acceptedAt }).where(eq(verifications.id, verification.id));
      await audit(tx, {
        workspaceId: verification.workspaceId,
        verificationId: verification.id,
        actor,
        requestId,
        action: 'consent.accepted',
        data: { consent_version_id: active.id, version: active.version },
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

/** Both response shapes of interface.md: `consent` and the flat consent_* fields. */
export function consentFields(rec: ConsentRecord | undefined) {
  return {
    consent: rec ? { version_id: rec.consentVersionId, version: rec.version, accepted_at: rec.acceptedAt.toISOString() } : null,
    consent_accepted: !!rec,
    consent_version: rec?.version ?? null,
    consented_at: rec?.acceptedAt.toISOString() ?? null,
  };
}

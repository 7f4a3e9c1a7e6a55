/**
 * Every personal field of a verification is written encrypted under the verification's data key
 * (lib/domain/personal-data/data-keys.ts), from its first write (docs/privacy.md, "What is stored"): the integrator's
 * external_metadata, the personal fields of the result (lib/domain/personal-data/result-fields.ts), the webhook bodies that
 * copy them (with device_signals), the receivers' answers, and the notes admins write about the person in the
 * audit log. No copy of them — in a table, a dead row version, the write-ahead log or a backup — is readable
 * without the data key, and erasure destroys the key.
 *
 * Each value is bound to its row by the associated data (a ciphertext copied onto another row does not open).
 * Reads open them in memory; once the key is gone they read as erased (null).
 */
import { inArray } from 'drizzle-orm';
import { dataKeys, type VerificationRow } from '@/lib/db/schema';
import type { DbOrTx } from '@/lib/db/client';
import { aesGcmDecrypt, aesGcmEncrypt } from '../../core/crypto/secretbox';
import { DataKeyDestroyedError, unwrapDataKey, type DataKeyRow } from './data-keys';
import { mergeResult, resultAad } from './result-fields';

/** The associated data of each kind of sealed value: the row it belongs to. */
export const AAD = {
  metadata: (verificationId: string) => `external_metadata:${verificationId}`,
  webhookBody: (eventId: string) => `webhook_body:${eventId}`,
  webhookResponse: (attemptId: string) => `webhook_response:${attemptId}`,
  audit: (auditId: string) => `audit:${auditId}`,
  documentRead: (mediaId: string) => `document_read:${mediaId}`,
};

export const sealText = (key: Buffer, aad: string, text: string): Buffer => aesGcmEncrypt(text, aad, key);

/** A sealed text opened with its (unwrapped) data key; null when there is none, or the key is gone (erased). */
export function openText(key: Buffer | null, aad: string, sealed: Uint8Array | null | undefined): string | null {
  if (!sealed || !key) return null;
  return aesGcmDecrypt(sealed, aad, key).toString('utf8');
}

/** The wrapped data keys of these verifications (one query), by verification id. */
export async function dataKeyRows(db: DbOrTx, verificationIds: string[]): Promise<Map<string, DataKeyRow>> {
  const ids = [...new Set(verificationIds)];
  if (ids.length === 0) return new Map();
  const rows = await db.select().from(dataKeys).where(inArray(dataKeys.verificationId, ids));
  return new Map(rows.map((r) => [r.verificationId, r]));
}

/** Unwraps each verification's data key once, however many of its values are opened. */
export function keyOpener(rows: Map<string, DataKeyRow>): (verificationId: string) => Buffer | null {
  const open = new Map<string, Buffer | null>();
  return (id) => {
    if (!open.has(id)) {
      const row = rows.get(id);
      open.set(id, row ? unwrapDataKey(row) : null);
    }
    return open.get(id)!;
  };
}

type Sealed = Pick<
  VerificationRow,
  'id' | 'result' | 'resultSealed' | 'externalMetadata' | 'externalMetadataRaw' | 'externalMetadataSealed'
>;

/**
 * A verification as read, with its personal fields opened in memory: `externalMetadataRaw` holds external_metadata's
 * text (null once erased) and `result` the whole result. The row's stored columns are never written back from it.
 */
export function openVerification<T extends Sealed>(v: T, key: Buffer | null): T {
  if (!v.externalMetadataSealed && !v.resultSealed) return v;
  const out = { ...v };
  if (v.externalMetadataSealed) {
    out.externalMetadataRaw = openText(key, AAD.metadata(v.id), v.externalMetadataSealed);
    out.externalMetadata = null;
  }
  if (v.resultSealed) {
    // Erasure clears result_sealed with the key: a sealed result without its key is an inconsistency, not a state.
    if (!key) throw new DataKeyDestroyedError(v.id);
    const personal = JSON.parse(aesGcmDecrypt(v.resultSealed, resultAad(v.id), key).toString('utf8'));
    out.result = mergeResult((v.result as Record<string, unknown> | null) ?? null, personal);
  }
  return out;
}

/** The same with the wrapped key row as read (or null). */
export const openVerificationWith = <T extends Sealed>(v: T, row: DataKeyRow | null | undefined): T =>
  v.externalMetadataSealed || v.resultSealed ? openVerification(v, row ? unwrapDataKey(row) : null) : v;

/** Verifications as read, opened: one query for the data keys of those that hold sealed fields. */
export async function openVerifications<T extends Sealed>(db: DbOrTx, rows: T[]): Promise<T[]> {
  const sealed = rows.filter((v) => v.externalMetadataSealed || v.resultSealed).map((v) => v.id);
  if (sealed.length === 0) return rows;
  const key = keyOpener(await dataKeyRows(db, sealed));
  return rows.map((v) => openVerification(v, key(v.id)));
}

/** The personal part of an audit entry's data: an admin's free-text note about the person. */
export const PERSONAL_AUDIT_FIELDS = ['note'] as const;

type AuditRow = { id: string; verificationId: string | null; data: unknown; dataSealed: Buffer | null };

/**
 * An audit entry's data with its personal part merged back; once the data key is gone, the part is absent and
 * `personal_erased` says so (the entry itself, who did what and when, stays).
 */
export function openAuditData(
  e: AuditRow,
  key: (verificationId: string) => Buffer | null,
): Record<string, unknown> | null {
  const data = (e.data ?? null) as Record<string, unknown> | null;
  if (!e.dataSealed || !e.verificationId) return data;
  const text = openText(key(e.verificationId), AAD.audit(e.id), e.dataSealed);
  return text === null ? { ...data, personal_erased: true } : { ...data, ...JSON.parse(text) };
}

/** Audit entries as read, their personal parts opened (one query for the keys). */
export async function openAuditEntries<T extends AuditRow>(db: DbOrTx, rows: T[]): Promise<T[]> {
  const sealed = rows.filter((e) => e.dataSealed && e.verificationId).map((e) => e.verificationId!);
  if (sealed.length === 0) return rows;
  const key = keyOpener(await dataKeyRows(db, sealed));
  return rows.map((e) => (e.dataSealed ? { ...e, data: openAuditData(e, key) } : e));
}

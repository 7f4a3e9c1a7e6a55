/** The API's representation of a verification (GET /v1/verifications/{id}). */
import type { VerificationRow } from '@/lib/db/schema';
import type { ConsentRecord } from '../consent';
import { consentFields } from '../consent';
import { env } from '../../core/env';
import { attemptsRemaining } from '../transitions/policy';
import { revealCaptureToken } from '../capture/auth';
import { RawJson } from '../../core/json-raw';

export const captureUrl = (token: string) => `${env().BASE_URL}/verify/${token}`;
/** A verification's capture url (null for one whose link predates encrypted tokens: see lib/domain/capture/auth.ts). */
export function captureUrlOf(v: Pick<VerificationRow, 'id' | 'captureTokenCiphertext'>): string | null {
  const token = revealCaptureToken(v);
  return token === null ? null : captureUrl(token);
}
const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** `external_metadata` as the integrator sent it (its own text, lib/core/json-raw.ts), or null. */
export function externalMetadataOf(
  v: Pick<VerificationRow, 'externalMetadata' | 'externalMetadataRaw'>,
): RawJson | unknown {
  if (v.externalMetadataRaw !== null && v.externalMetadataRaw !== undefined) return new RawJson(v.externalMetadataRaw);
  return v.externalMetadata ?? null;
}

/** The answer of POST /v1/verifications: the new verification, with the url to give the end user. */
export function serializeCreated(row: VerificationRow) {
  return {
    id: row.id,
    status: row.status,
    mode: row.mode,
    external_id: row.externalId,
    external_metadata: externalMetadataOf(row),
    url: captureUrlOf(row),
    return_url: row.returnUrl,
    locale: row.locale,
    created_at: row.createdAt.toISOString(),
  };
}

const NO_DUPLICATE_CHECK = { checked: false, duplicate_count: 0, duplicates: [] };

/** The verification object of GET /v1/verifications/{id}. */
export function serializeVerification(v: VerificationRow, consent: ConsentRecord | undefined) {
  return {
    id: v.id,
    status: v.status,
    mode: v.mode,
    flow: v.flow,
    check_method: v.checkMethod,
    external_id: v.externalId,
    external_metadata: externalMetadataOf(v),
    url: captureUrlOf(v),
    // Extension: where the capture page sends the user back (null when none was given).
    return_url: v.returnUrl,
    // Extension: the capture page's language the integrator asked for, negotiated (null: the browser decides).
    locale: v.locale,
    created_at: iso(v.createdAt),
    started_at: iso(v.startedAt),
    submitted_at: iso(v.submittedAt),
    completed_at: iso(v.completedAt),
    // Extension: when anything of it last changed (the order and the filter of GET /v1/verifications).
    updated_at: iso(v.updatedAt),
    attempts_remaining: attemptsRemaining(v),
    reason: v.reason,
    result: v.result ?? null,
    duplicate_check: v.duplicateCheck ?? NO_DUPLICATE_CHECK,
    ...consentFields(consent),
    // Extension (docs/api.md "Data retention and erasure"): when its photos and personal data were erased.
    data_erased_at: iso(v.dataErasedAt),
  };
}

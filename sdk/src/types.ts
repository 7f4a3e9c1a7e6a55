/** The API's objects (GET /v1/openapi.json, components.schemas). New fields and statuses may appear. */
export type VerificationStatus =
  | 'created'
  | 'started'
  | 'submitted'
  | 'resubmission_requested'
  | 'review'
  | 'approved'
  | 'declined'
  | 'abandoned'
  | 'expired';
export type Mode = 'test' | 'live';
export type JsonObject = { [key: string]: unknown };

export type DuplicateCheck = {
  /** false means no answer (duplicates allowed, or no usable face), not a clean face */
  checked: boolean;
  duplicate_count: number;
  duplicates: {
    verification_id: string;
    external_id: string | null;
    similarity_score: number;
    verified_at: string | null;
  }[];
};

/**
 * The decision. Every Age result says where its age came from (extension): `estimation` (the selfie's estimated
 * range) or `document` (a document's date of birth, also after a step-up from estimation); more may be added.
 */
export type VerificationResult = JsonObject & {
  decision?: string;
  age_source?: 'estimation' | 'document' | 'wallet' | (string & {});
};

export type ConsentRecord = { version_id: number; version: string; accepted_at: string };

export type Verification = {
  id: string;
  status: VerificationStatus;
  mode: Mode;
  flow: 'age' | 'kyc';
  check_method: 'estimation' | 'document_verification' | null;
  external_id: string | null;
  external_metadata: JsonObject | null;
  url: string | null;
  return_url: string | null;
  created_at: string;
  started_at: string | null;
  submitted_at: string | null;
  completed_at: string | null;
  updated_at: string;
  attempts_remaining: number;
  reason: string | null;
  result: VerificationResult | null;
  duplicate_check: DuplicateCheck;
  consent: ConsentRecord | null;
  consent_accepted: boolean;
  consent_version: string | null;
  consented_at: string | null;
  data_erased_at: string | null;
};

export type VerificationCreated = Pick<
  Verification,
  'id' | 'status' | 'mode' | 'external_id' | 'external_metadata' | 'url' | 'return_url' | 'created_at'
>;
export type VerificationList = { items: Verification[]; next_cursor: string | null };
export type ConsentVersion = {
  id: number;
  version: string;
  text_sha256: string;
  url: string;
  consent_text: string;
  locale?: string;
  locales?: string[];
};
export type ConsentAccepted = {
  id: string;
  consent: ConsentRecord | null;
  consent_accepted: boolean;
  consent_version: string | null;
  consented_at: string | null;
};
export type Media = {
  id: string;
  verification_id: string;
  type: 'selfie' | 'document';
  side?: 'front' | 'back' | null;
  document_type?: 'passport' | 'id_card' | 'driving_licence' | null;
  status: 'uploaded';
  created_at: string;
};
export type Submitted = { id: string; status: VerificationStatus; submitted_at: string; attempts_remaining: number };
export type Erasure = {
  id: string;
  status: VerificationStatus;
  data_erased_at: string;
  receipt: { receipt: JsonObject; signature: { alg: 'EdDSA'; kid: string; value: string } };
};

export type WebhookEvent = {
  verification_id: string;
  status: VerificationStatus;
  external_id: string | null;
  external_metadata: JsonObject | null;
  reason: string | null;
  timestamp: string;
  duplicate_detected: boolean;
  duplicate_count: number;
  duplicate_of?: { verification_id: string; external_id: string | null };
  device_signals?: JsonObject;
  data_erased_at?: string;
};

export type CreateVerificationInput = {
  external_id?: string | null;
  external_metadata?: JsonObject | null;
  flow?: 'age' | 'kyc';
  mode?: Mode;
  /** Extension: https URL the capture page's "Back to …" button opens at the end. */
  return_url?: string | null;
};

export type ListVerificationsQuery = {
  external_id?: string;
  status?: VerificationStatus | VerificationStatus[];
  /** ISO 8601 with a zone, or a Date */
  updated_since?: string | Date;
  limit?: number;
  cursor?: string;
};

/** Extension (docs/wallet.md): the Digital Credentials API protocols the service speaks. */
export type WalletProtocol = 'openid4vp-v1-unsigned' | 'org-iso-mdoc';
export type WalletRequestInput = {
  protocol: WalletProtocol;
  /** The origin of the page that calls navigator.credentials.get: https://host[:port] (http://localhost for development) */
  origin: string;
};
/** A request for the browser: pass `protocol` and `data` unchanged to navigator.credentials.get. */
export type WalletRequest = { id: string; protocol: WalletProtocol; data: JsonObject; expires_at: string };
/** The DigitalCredential as the browser gave it, for the request `request_id`. */
export type WalletResponseInput = { request_id: string; protocol: string; data: unknown };
export type WalletRefusalReason =
  | 'untrusted_issuer'
  | 'invalid_signature'
  | 'digest_mismatch'
  | 'expired'
  | 'transcript_mismatch'
  | 'replayed'
  | 'claim_missing'
  | 'malformed';

/**
 * The response bodies of /v1, as zod schemas: the one description the OpenAPI document is generated from
 * (lib/api/openapi.ts) and every integration test checks the answers it receives against (test/helpers/contract.ts).
 * Objects are strict: a field the code sends but the contract does not name fails the tests.
 */
import { z } from 'zod';
import { VERIFICATION_STATUSES } from '@/lib/db/schema';
import { ERROR_CODES } from '../core/errors';
import { LOCALES } from '../core/i18n/locales';
import { REASON_CODES, REASONS } from '../domain/transitions/reasons';

const timestamp = z.iso
  .datetime({ offset: true })
  .describe('ISO 8601 UTC with milliseconds, e.g. 2026-11-22T10:00:00.000Z');
const nullableTimestamp = timestamp.nullable();
const uuid = z
  .string()
  .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
  .describe('A UUID (version 7: ids sort by creation)');

export const verificationStatus = z
  .enum(VERIFICATION_STATUSES)
  .describe('See docs/api.md "Statuses and transitions". New statuses may appear: log the ones you do not handle.');
const mode = z.enum(['test', 'live']);

const metadata = z
  .record(z.string(), z.unknown())
  .nullable()
  .describe('As sent at creation: the same keys in the same order, the same number literals.');
const returnUrl = z
  .string()
  .nullable()
  .describe('Extension: where the capture page sends the user back when it finishes (https).');

export const duplicateCheckSchema = z.strictObject({
  checked: z.boolean().describe('false: no answer (duplicates allowed, or no usable face), not a clean face'),
  duplicate_count: z.number().int().min(0).describe('Other accounts that matched, all of them'),
  duplicates: z
    .array(
      z.strictObject({
        verification_id: uuid,
        external_id: z.string().nullable(),
        similarity_score: z.number().min(0).max(1).describe('Cosine similarity'),
        verified_at: nullableTimestamp,
      }),
    )
    .max(10)
    .describe('The closest matches, at most 10'),
});

const localeCode = z.enum(LOCALES);
const consentObject = z
  .strictObject({
    version_id: z.number().int(),
    version: z.string(),
    accepted_at: timestamp,
    locale: localeCode.describe(
      'Extension: the language of the text accepted (the one whose text_sha256 was sent; en for the label shape)',
    ),
  })
  .nullable();
const verificationLocale = localeCode
  .nullable()
  .describe(
    "Extension: the capture page's language as asked for at creation, negotiated to a supported one (fr-CA → fr); null when none was given (the browser decides)",
  );
const consentShapes = {
  consent: consentObject.describe('The acceptance (null before consent)'),
  consent_accepted: z.boolean(),
  consent_version: z.string().nullable(),
  consented_at: nullableTimestamp,
};

const reason = z
  .string()
  .nullable()
  .describe(
    `Reason code on declined or resubmission_requested, else null (docs/api.md "Decision reasons"): ${REASON_CODES.join(', ')}; the extensions are ${REASON_CODES.filter((r) => REASONS[r].extension).join(', ')} (document_required: the age estimate could not decide and the workspace steps up to an ID document; upload the document and submit again, docs/api.md "Step-up to a document"). Log codes you do not know.`,
  );
const ageSource = z
  .enum(['estimation', 'document', 'wallet'])
  .optional()
  .describe(
    "Extension, on every result of the Age flow: where the age came from. estimation: the selfie's estimated range; document: the date of birth on an ID document (check method document_verification, or an estimation verification that stepped up to a document when its estimate could not decide: the workspace setting estimation_fallback = document); wallet: a digital ID wallet's signed age_over_NN claim (docs/wallet.md), with result.wallet = {protocol, element, value, issuer}. New values may appear: treat an unknown one as its own source.",
  );

export const verificationSchema = z.strictObject({
  id: uuid,
  status: verificationStatus,
  mode,
  flow: z.enum(['age', 'kyc']),
  check_method: z.enum(['estimation', 'document_verification']).nullable(),
  external_id: z.string().nullable(),
  external_metadata: metadata,
  url: z
    .string()
    .nullable()
    .describe(
      'The capture page for the end user (null for links made before tokens were stored encrypted). Extension: it may be shown inside a page of an origin on the workspace setting embed_origins (https:// origins; http://localhost ones for test-mode verifications only; by default none), with the browser SDK @open-verify/embed, which sends the page\'s events to that origin (docs/sdks.md "Embedding the flow")',
    ),
  return_url: returnUrl,
  locale: verificationLocale,
  created_at: timestamp,
  started_at: nullableTimestamp,
  submitted_at: nullableTimestamp,
  completed_at: nullableTimestamp,
  updated_at: timestamp.describe('Extension: when anything of it last changed'),
  attempts_remaining: z.number().int().min(0).max(5),
  reason: reason,
  result: z
    .looseObject({
      age_source: ageSource,
    })
    .nullable()
    .describe(
      'The decision: for estimation {decision, threshold, estimated_age, age_range: {min, max}, confidence}; document and KYC flows add their fields; a wallet proof {decision, threshold, age_source: wallet, wallet}; every Age result carries age_source (extension)',
    ),
  duplicate_check: duplicateCheckSchema,
  ...consentShapes,
  data_erased_at: nullableTimestamp.describe('Extension: when its photos and personal data were erased'),
});

export const verificationCreatedSchema = z.strictObject({
  id: uuid,
  status: verificationStatus,
  mode,
  external_id: z.string().nullable(),
  external_metadata: metadata,
  url: z.string().nullable(),
  return_url: returnUrl,
  locale: verificationLocale,
  created_at: timestamp,
});

export const verificationListSchema = z.strictObject({
  items: z.array(verificationSchema),
  next_cursor: z
    .string()
    .nullable()
    .describe('Pass as `cursor` (with the same filters) for the next page; null on the last'),
});

export const consentVersionSchema = z.strictObject({
  id: z.number().int(),
  version: z.string(),
  text_sha256: z.string().regex(/^[0-9a-f]{64}$/),
  url: z
    .string()
    .describe(
      'The full text, text/plain; charset=utf-8, public: {BASE_URL}/consent/{id}.txt in English, {BASE_URL}/consent/{id}/{locale}.txt in another language',
    ),
  consent_text: z
    .string()
    .describe(
      'The same text as at url, exactly (the other response shape of this resource): its UTF-8 bytes hash to text_sha256',
    ),
  locale: localeCode.describe(
    'Extension: the language of the text at url (English unless ?lang= asked for one the version has)',
  ),
  locales: z
    .array(localeCode)
    .describe('Extension: every language this version has a text in (accepted by its text_sha256)'),
});

export const consentAcceptedSchema = z.strictObject({ id: uuid, ...consentShapes });

export const mediaSchema = z.strictObject({
  id: z.string(),
  verification_id: uuid,
  type: z.enum(['selfie', 'document']),
  side: z.enum(['front', 'back']).nullable().optional().describe('Documents only'),
  document_type: z.enum(['passport', 'id_card', 'driving_licence']).nullable().optional().describe('Documents only'),
  status: z.literal('uploaded'),
  created_at: timestamp,
});

export const submittedSchema = z.strictObject({
  id: uuid,
  status: verificationStatus,
  submitted_at: timestamp,
  attempts_remaining: z.number().int().min(0).max(5),
});

export const erasureSchema = z.strictObject({
  id: uuid,
  status: verificationStatus,
  data_erased_at: timestamp,
  receipt: z
    .strictObject({
      receipt: z.record(z.string(), z.unknown()).describe('What was erased and kept, when, by whom (docs/receipts.md)'),
      signature: z.strictObject({ alg: z.literal('EdDSA'), kid: z.string(), value: z.string() }),
    })
    .describe('Signed with Ed25519; public keys at /receipt-keys'),
});

/** Extension (docs/wallet.md): a request to a digital ID wallet, bound to one verification. */
export const walletRequestSchema = z.strictObject({
  id: z.string().describe("Send it back as `request_id` with the wallet's response"),
  protocol: z.enum(['openid4vp-v1-unsigned', 'org-iso-mdoc']),
  data: z
    .record(z.string(), z.unknown())
    .describe(
      "Exactly the object to pass as this request's `data` to `navigator.credentials.get({ digital: { requests: [{ protocol, data }] } })`",
    ),
  expires_at: timestamp.describe('The response must arrive before this (5 minutes)'),
});

export const errorSchema = z.strictObject({
  error: z.strictObject({
    code: z.enum(ERROR_CODES).describe('Branch on this, never on message'),
    message: z.string(),
    details: z
      .record(z.string(), z.unknown())
      .optional()
      .describe(
        'VALIDATION_ERROR: fields; media checks: failed_checks and checks; MISSING_REQUIRED_MEDIA: missing; WALLET_RESPONSE_INVALID: reason',
      ),
    request_id: z.string().describe('The X-Request-Id of the response'),
  }),
});

/** The webhook body (docs/webhooks.md "The request"): canonical JSON, keys in this order. */
export const webhookEventSchema = z
  .object({
    verification_id: uuid,
    status: verificationStatus,
    external_id: z.string().nullable(),
    external_metadata: metadata,
    reason,
    timestamp: timestamp.describe('When the decision was made'),
    duplicate_detected: z.boolean(),
    duplicate_count: z.number().int().min(0),
    duplicate_of: z
      .strictObject({ verification_id: uuid, external_id: z.string().nullable() })
      .optional()
      .describe('The closest match, when one matched'),
    device_signals: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('Only when a device-intelligence provider supplied data'),
    data_erased_at: timestamp.optional().describe("Extension: present when the verification's data was erased"),
  })
  .describe('New fields may be added: ignore the ones you do not know.');

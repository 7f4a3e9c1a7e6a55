/**
 * The /v1 contract, in one registry: each operation's method and path, its operation id, the zod schemas of its
 * parameters, query, request body and responses, the error codes it may answer, and its handler. Route files
 * declare `apiRoute(OPERATIONS.x)` and nothing else; GET /v1/openapi.json and /docs/api are generated from this
 * (lib/api/openapi.ts); integration tests check every answer they receive against it (test/helpers/contract.ts).
 * A field the code sends that is not here, or an error code not listed for the operation, fails the tests.
 */
import { z } from 'zod';
import type { ErrorCode } from '../core/errors';
import type { RouteOptions } from './route';
import { createVerificationBody } from '../domain/verifications/create';
import { listVerificationsQuery } from '../domain/verifications/list';
import {
  acceptConsentHandler,
  consentBody,
  consentById,
  consentQuery,
  consentByLabel,
  createVerificationHandler,
  getActiveConsentHandler,
  getVerificationHandler,
  idParams,
  listVerificationsHandler,
  mediaFields,
  submitHandler,
  uploadMediaHandler,
} from './handlers/verifications';
import { eraseDataHandler } from './handlers/retention';
import {
  createWalletRequestHandler,
  submitWalletResponseHandler,
  walletRequestBody,
  walletResponseBody,
} from './handlers/wallet';
import * as S from './schemas';

export type HttpMethod = 'GET' | 'POST' | 'DELETE';

export type Contract = {
  operationId: string;
  method: HttpMethod;
  /** OpenAPI form: `/v1/verifications/{id}` */
  path: string;
  summary: string;
  description: string;
  tag: 'Verifications' | 'Consent' | 'Media' | 'Privacy' | 'Wallet';
  /** The request body as documented, where the route reads a looser shape and tells the forms apart itself. */
  documentedBody?: z.ZodType;
  /** Multipart file parts: name → description. */
  files?: Record<string, string>;
  responses: Partial<Record<200 | 201, { description: string; schema: z.ZodType }>>;
  /** The codes this operation answers besides every operation's own (EVERY_OPERATION_ERRORS, AUTH_ERRORS). */
  errors: readonly ErrorCode[];
};

export type Operation = RouteOptions<z.ZodType, z.ZodType, z.ZodType> & Contract;

/** Any request can meet these: a malformed request, a body over its limit, the rate limit, our own trouble. */
export const EVERY_OPERATION_ERRORS: readonly ErrorCode[] = [
  'BAD_REQUEST',
  'VALIDATION_ERROR',
  'PAYLOAD_TOO_LARGE',
  'REQUEST_TIMEOUT',
  'RATE_LIMIT',
  'INTERNAL_ERROR',
  'DATABASE_UNAVAILABLE',
];
/** Every signed endpoint. */
export const AUTH_ERRORS: readonly ErrorCode[] = [
  'MISSING_API_KEY',
  'INVALID_API_KEY',
  'MISSING_SIGNATURE',
  'INVALID_SIGNATURE',
  'NO_SECRET_KEYS',
  'MISSING_TIMESTAMP',
  'INVALID_TIMESTAMP',
];
export const MEDIA_CHECK_ERRORS: readonly ErrorCode[] = [
  'NO_FACE_DETECTED',
  'MULTIPLE_FACES',
  'FACE_TOO_BLURRY',
  'FACE_TOO_DARK',
  'FACE_TOO_BRIGHT',
  'FACE_OCCLUDED',
  'FACE_TOO_SMALL',
  'FACE_CUT_OFF',
  'DOCUMENT_NOT_FOUND',
  'DOCUMENT_TOO_BLURRY',
  'DOCUMENT_UNREADABLE',
  'IMAGE_TOO_SMALL',
  'IMAGE_TOO_LARGE',
];

/** Keeps each operation's handler typed by its own schemas. */
function defineOperation<PS extends z.ZodType, BS extends z.ZodType, QS extends z.ZodType>(
  op: RouteOptions<PS, BS, QS> & Contract,
): Operation {
  return op as unknown as Operation;
}

export const OPERATIONS = {
  createVerification: defineOperation({
    operationId: 'createVerification',
    method: 'POST',
    path: '/v1/verifications',
    tag: 'Verifications',
    summary: 'Create a verification',
    description:
      "Starts a verification session in `created`; give its `url` to the end user. Signed, unless the workspace does not enforce signatures (then the mode is the body's `mode`, or live). Send `Idempotency-Key` to make a retry safe: the same key and body return the same verification (`Idempotent-Replayed: true`).",
    auth: 'apiKeyUnsignedAllowed',
    body: createVerificationBody,
    handler: createVerificationHandler,
    responses: {
      201: {
        description: 'Created (or replayed for the same Idempotency-Key and body)',
        schema: S.verificationCreatedSchema,
      },
    },
    errors: ['UNSUPPORTED_MEDIA_TYPE'],
  }),
  listVerifications: defineOperation({
    operationId: 'listVerifications',
    method: 'GET',
    path: '/v1/verifications',
    tag: 'Verifications',
    summary: 'List verifications (reconciliation)',
    description:
      "Extension. The verifications of the key's workspace and mode, oldest change first (by `updated_at`, then `id`), filtered by `external_id`, `status` and `updated_since`, in pages continued with `cursor`. The query is signed exactly as sent.",
    auth: 'apiKey',
    query: listVerificationsQuery,
    handler: listVerificationsHandler,
    responses: { 200: { description: 'One page', schema: S.verificationListSchema } },
    errors: [],
  }),
  getVerification: defineOperation({
    operationId: 'getVerification',
    method: 'GET',
    path: '/v1/verifications/{id}',
    tag: 'Verifications',
    summary: 'Read a verification',
    description:
      "Status, result, timestamps, attempts, reason, duplicate check and consent. Another workspace's or the other mode's id is 404.",
    auth: 'apiKey',
    params: idParams,
    handler: getVerificationHandler,
    responses: { 200: { description: 'The verification', schema: S.verificationSchema } },
    errors: ['NOT_FOUND'],
  }),
  getActiveConsent: defineOperation({
    operationId: 'getActiveConsent',
    method: 'GET',
    path: '/v1/consent',
    tag: 'Consent',
    summary: 'The active consent version',
    description:
      "Show the text at `url` unchanged and send its SHA-256 back on acceptance. Extension: `?lang=` (a BCP 47 tag of one of the capture page's languages, e.g. `fr` or `fr-CA`) answers with that language's text (`url`, `text_sha256`) under the same version id, or the English one when the version has no text in it (`locale` says which); without `lang`, English.",
    auth: 'apiKey',
    query: consentQuery,
    handler: getActiveConsentHandler,
    responses: { 200: { description: 'The active version', schema: S.consentVersionSchema } },
    errors: ['NOT_FOUND'],
  }),
  acceptConsent: defineOperation({
    operationId: 'acceptConsent',
    method: 'POST',
    path: '/v1/verifications/{id}/consent',
    tag: 'Consent',
    summary: "Record the user's consent",
    description:
      'Either `{consent_version_id, text_sha256}` or `{consent_version, accepted: true}`. Idempotent: the same version again returns the existing record.',
    auth: 'apiKey',
    params: idParams,
    body: consentBody,
    documentedBody: z.union([consentById, consentByLabel]),
    handler: acceptConsentHandler,
    responses: { 200: { description: 'The consent record', schema: S.consentAcceptedSchema } },
    errors: [
      'NOT_FOUND',
      'UNSUPPORTED_MEDIA_TYPE',
      'INVALID_STATUS',
      'CONSENT_VERSION_INACTIVE',
      'CONSENT_SHA256_MISMATCH',
    ],
  }),
  uploadMedia: defineOperation({
    operationId: 'uploadMedia',
    method: 'POST',
    path: '/v1/verifications/{id}/media',
    tag: 'Media',
    summary: 'Upload a selfie or a document image',
    description:
      'multipart/form-data. Signed over `METHOD + path + "\\n" + sorted fields + "\\n" + sorted file SHA-256s`. Each image is validated; the first failing check is the error code, with every measurement in `details.checks`. Extension: the side of a document that carries its MRZ or barcode (a passport\'s data page, an ID card\'s or licence\'s back) is read at upload; when no MRZ or barcode with valid check digits can be read, 422 `DOCUMENT_UNREADABLE` ("Lay the document flat, fill the frame, and tilt it away from the light so the code at the bottom has no glare."), no attempt spent; a read is kept, sealed, for the decision.',
    auth: 'apiKey',
    params: idParams,
    multipart: true,
    body: mediaFields,
    files: {
      file: 'The image: JPEG, PNG or WebP (by content), at most 10 MiB, 320x240 (a document 240x150) to 8000x8000 pixels',
    },
    handler: uploadMediaHandler,
    responses: { 201: { description: 'Accepted', schema: S.mediaSchema } },
    errors: [
      'NOT_FOUND',
      'CONSENT_REQUIRED',
      'INVALID_STATUS',
      'UNSUPPORTED_MEDIA_TYPE',
      'ANALYSIS_QUEUE_FULL',
      ...MEDIA_CHECK_ERRORS,
    ],
  }),
  submitVerification: defineOperation({
    operationId: 'submitVerification',
    method: 'POST',
    path: '/v1/verifications/{id}/submit',
    tag: 'Verifications',
    summary: 'Submit for a decision',
    description:
      'No body. Consumes one of 5 attempts. Live mode: `submitted` (the decision follows by webhook or GET); test mode: `review`.',
    auth: 'apiKey',
    params: idParams,
    handler: submitHandler,
    responses: { 200: { description: 'Submitted', schema: S.submittedSchema } },
    errors: ['NOT_FOUND', 'CONSENT_REQUIRED', 'INVALID_STATUS', 'MISSING_REQUIRED_MEDIA'],
  }),
  eraseVerificationData: defineOperation({
    operationId: 'eraseVerificationData',
    method: 'DELETE',
    path: '/v1/verifications/{id}/data',
    tag: 'Privacy',
    summary: "Erase a verification's data now",
    description:
      'Extension. Photos, face data and personal fields are erased; a case in progress is abandoned. Idempotent: a repeat returns the same signed receipt.',
    auth: 'apiKey',
    params: idParams,
    handler: eraseDataHandler,
    responses: { 200: { description: 'Erased, with the signed receipt', schema: S.erasureSchema } },
    errors: ['NOT_FOUND'],
  }),
  createWalletRequest: defineOperation({
    operationId: 'createWalletRequest',
    method: 'POST',
    path: '/v1/verifications/{id}/wallet-requests',
    tag: 'Wallet',
    summary: 'Ask a digital ID wallet for an age proof',
    description:
      "Extension (docs/wallet.md). A request for the W3C Digital Credentials API, bound to this verification and to `origin`, the page that will call `navigator.credentials.get`: a fresh nonce and response key, asking only for `age_over_NN` (NN the workspace's age threshold) of an ISO mDL, not retained. Pass `data` unchanged with `protocol`; send what the browser returns to wallet-responses within 5 minutes. Consent first; the verification must be in `created`, `started` or `resubmission_requested` with an attempt left; an identity (KYC) verification takes no wallet proof (409).",
    auth: 'apiKey',
    params: idParams,
    body: walletRequestBody,
    handler: createWalletRequestHandler,
    responses: { 201: { description: 'The request, for the browser', schema: S.walletRequestSchema } },
    errors: ['NOT_FOUND', 'UNSUPPORTED_MEDIA_TYPE', 'CONSENT_REQUIRED', 'INVALID_STATUS'],
  }),
  submitWalletResponse: defineOperation({
    operationId: 'submitWalletResponse',
    method: 'POST',
    path: '/v1/verifications/{id}/wallet-responses',
    tag: 'Wallet',
    summary: "Verify a wallet's age proof and decide",
    description:
      "Extension (docs/wallet.md). The DigitalCredential the browser returned, for one of this verification's wallet requests. Verified against the IACA roots the operator trusts: decryption with that request's key, the session transcript rebuilt from the request, the certificate chain and dates, the MSO signature and validity, each element's digest, the device signature, and that only `age_over_NN` was disclosed. A valid proof is one attempt and decides at once (live: `approved`, or `declined` with `age_below_threshold`; test mode: `review`), with its webhook; `result.age_source` is `wallet`. Any failed check is 422 `WALLET_RESPONSE_INVALID` with `details.reason`, and the verification stays as it was. A request is answered once (`replayed`).",
    auth: 'apiKey',
    params: idParams,
    body: walletResponseBody,
    handler: submitWalletResponseHandler,
    responses: { 200: { description: 'Verified and decided: the verification', schema: S.verificationSchema } },
    errors: ['NOT_FOUND', 'UNSUPPORTED_MEDIA_TYPE', 'CONSENT_REQUIRED', 'INVALID_STATUS', 'WALLET_RESPONSE_INVALID'],
  }),
} satisfies Record<string, Operation>;

/** The codes an operation may answer with, all told. */
export function errorsOf(op: Contract & { auth: string }): ErrorCode[] {
  return [...new Set([...EVERY_OPERATION_ERRORS, ...(op.auth === 'captureToken' ? [] : AUTH_ERRORS), ...op.errors])];
}

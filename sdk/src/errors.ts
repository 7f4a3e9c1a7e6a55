import type { WalletRefusalReason } from './types.js';
/** Every error code the API answers with (GET /v1/openapi.json, components.schemas.Error). */
export const ERROR_CODES = [
  'BAD_REQUEST',
  'MISSING_API_KEY',
  'INVALID_API_KEY',
  'MISSING_SIGNATURE',
  'INVALID_SIGNATURE',
  'NO_SECRET_KEYS',
  'CONSENT_REQUIRED',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'INVALID_STATUS',
  'CONSENT_VERSION_INACTIVE',
  'CONSENT_SHA256_MISMATCH',
  'KEY_LIMIT_REACHED',
  'ENCRYPTION_KEY_IN_USE',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'VALIDATION_ERROR',
  'MISSING_REQUIRED_MEDIA',
  'WALLET_RESPONSE_INVALID',
  'NO_FACE_DETECTED',
  'FACE_CUT_OFF',
  'MULTIPLE_FACES',
  'FACE_TOO_BLURRY',
  'FACE_TOO_DARK',
  'FACE_TOO_BRIGHT',
  'FACE_OCCLUDED',
  'FACE_TOO_SMALL',
  'DOCUMENT_NOT_FOUND',
  'DOCUMENT_TOO_BLURRY',
  'IMAGE_TOO_SMALL',
  'IMAGE_TOO_LARGE',
  'RATE_LIMIT',
  'INTERNAL_ERROR',
  'ANALYSIS_QUEUE_FULL',
  'DATABASE_UNAVAILABLE',
  'NOT_READY',
  'REQUEST_TIMEOUT',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export const MEDIA_REJECTION_CODES = [
  'NO_FACE_DETECTED',
  'FACE_CUT_OFF',
  'MULTIPLE_FACES',
  'FACE_TOO_BLURRY',
  'FACE_TOO_DARK',
  'FACE_TOO_BRIGHT',
  'FACE_OCCLUDED',
  'FACE_TOO_SMALL',
  'DOCUMENT_NOT_FOUND',
  'DOCUMENT_TOO_BLURRY',
  'IMAGE_TOO_SMALL',
  'IMAGE_TOO_LARGE',
] as const satisfies readonly ErrorCode[];

/** Base of everything this SDK throws. */
export class OpenVerifyError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The API answered with its error envelope. Branch on `code` (a new code may appear: keep a default branch). */
export class ApiError extends OpenVerifyError {
  readonly code: ErrorCode | (string & {});
  readonly status: number;
  readonly details: Record<string, unknown> | undefined;
  readonly requestId: string | undefined;
  /** Seconds to wait before retrying (429 and 503), from Retry-After. */
  readonly retryAfter: number | undefined;
  constructor(init: {
    code: string;
    status: number;
    message: string;
    details?: Record<string, unknown>;
    requestId?: string;
    retryAfter?: number;
  }) {
    super(`${init.code}: ${init.message}`);
    this.code = init.code;
    this.status = init.status;
    this.details = init.details;
    this.requestId = init.requestId;
    this.retryAfter = init.retryAfter;
  }
}
/** 401: a missing or unknown API key, a missing or wrong signature, a workspace without keys. */
export class AuthenticationError extends ApiError {}
/** 404: unknown id, another workspace's, or the other mode's. */
export class NotFoundError extends ApiError {}
/** 409: the verification's status does not allow it, or the consent version or hash is not the active one. */
export class ConflictError extends ApiError {}
/** 403 CONSENT_REQUIRED. */
export class ConsentRequiredError extends ApiError {}
/** 422 VALIDATION_ERROR (`details.fields`) and MISSING_REQUIRED_MEDIA (`details.missing`). */
export class ValidationError extends ApiError {
  get fields(): Record<string, string[]> | undefined {
    return this.details?.fields as Record<string, string[]> | undefined;
  }
}
/** A photo refused by a check: `code` is the first failing check; `details.checks` has every measurement. */
export class MediaRejectedError extends ApiError {
  get failedChecks(): string[] {
    return (this.details?.failed_checks as string[] | undefined) ?? [this.code];
  }
}
/**
 * 422 WALLET_RESPONSE_INVALID: a wallet's age proof was refused; `reason` says which check failed (docs/wallet.md).
 * The verification is unchanged and still open: ask the wallet again with a new request, or fall back to a selfie.
 */
export class WalletResponseInvalidError extends ApiError {
  get reason(): WalletRefusalReason | (string & {}) {
    return String(this.details?.reason ?? '');
  }
}
/** 429 RATE_LIMIT: wait `retryAfter` seconds. */
export class RateLimitError extends ApiError {}
/** 5xx: the service's trouble; safe to retry later. */
export class ServerError extends ApiError {}

/** The request did not get an answer (connection refused or reset, DNS, timeout), after the retries. */
export class NetworkError extends OpenVerifyError {}
/** The consent text fetched from its url does not hash to the version's text_sha256: do not show it. */
export class ConsentIntegrityError extends OpenVerifyError {}
/** waitForDecision ran out of time. */
export class TimeoutError extends OpenVerifyError {}
/** A webhook failed verification: do not act on it (answer 401). */
export class WebhookVerificationError extends OpenVerifyError {}

/** The typed error for an error envelope. */
export function apiError(status: number, body: unknown, retryAfter?: number): ApiError {
  const e = (body as { error?: { code?: unknown; message?: unknown; details?: unknown; request_id?: unknown } } | null)
    ?.error;
  const init = {
    code: typeof e?.code === 'string' ? e.code : status >= 500 ? 'INTERNAL_ERROR' : 'BAD_REQUEST',
    status,
    message: typeof e?.message === 'string' ? e.message : `HTTP ${status}`,
    details: e?.details && typeof e.details === 'object' ? (e.details as Record<string, unknown>) : undefined,
    requestId: typeof e?.request_id === 'string' ? e.request_id : undefined,
    retryAfter,
  };
  if ((MEDIA_REJECTION_CODES as readonly string[]).includes(init.code)) return new MediaRejectedError(init);
  if (init.code === 'CONSENT_REQUIRED') return new ConsentRequiredError(init);
  if (init.code === 'WALLET_RESPONSE_INVALID') return new WalletResponseInvalidError(init);
  if (init.code === 'RATE_LIMIT') return new RateLimitError(init);
  if (status === 401) return new AuthenticationError(init);
  if (status === 404) return new NotFoundError(init);
  if (status === 409) return new ConflictError(init);
  if (status === 422) return new ValidationError(init);
  if (status >= 500) return new ServerError(init);
  return new ApiError(init);
}

/** `e` is an API error, optionally of this code: `if (isApiError(e, 'NOT_FOUND')) …`. */
export function isApiError(e: unknown, code?: ErrorCode): e is ApiError {
  return e instanceof ApiError && (code === undefined || e.code === code);
}

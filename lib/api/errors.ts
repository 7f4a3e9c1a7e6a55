/**
 * One error type and one code→HTTP-status table (shared/spec/decisions.md). Only the translator in
 * respond.ts picks a status; tests assert on `error.code`, never on message text.
 */
export const ERROR_STATUS = {
  MISSING_API_KEY: 401,
  INVALID_API_KEY: 401,
  MISSING_SIGNATURE: 401,
  INVALID_SIGNATURE: 401,
  NO_SECRET_KEYS: 401,
  CONSENT_REQUIRED: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  INVALID_STATUS: 409,
  CONSENT_VERSION_INACTIVE: 409,
  CONSENT_SHA256_MISMATCH: 409,
  KEY_LIMIT_REACHED: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  VALIDATION_ERROR: 422,
  MISSING_REQUIRED_MEDIA: 422,
  NO_FACE_DETECTED: 422,
  MULTIPLE_FACES: 422,
  FACE_TOO_BLURRY: 422,
  FACE_TOO_DARK: 422,
  FACE_TOO_BRIGHT: 422,
  FACE_OCCLUDED: 422,
  FACE_TOO_SMALL: 422,
  FACE_CUT_OFF: 422,
  DOCUMENT_NOT_FOUND: 422,
  DOCUMENT_TOO_BLURRY: 422,
  IMAGE_TOO_SMALL: 422,
  IMAGE_TOO_LARGE: 422,
  RATE_LIMIT: 429,
  INTERNAL_ERROR: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

export const notFound = (what = 'Resource') => new ApiError('NOT_FOUND', `${what} not found.`);

export function validationError(fields: Record<string, string[]>, message = 'The request has invalid fields.') {
  return new ApiError('VALIDATION_ERROR', message, { fields });
}

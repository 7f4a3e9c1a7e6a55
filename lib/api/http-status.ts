/**
 * The one code → HTTP status table of shared/spec/decisions.md. Only the translator in respond.ts reads it;
 * `satisfies` makes a new domain error code fail the type check until it has a status here.
 */
import type { ErrorCode } from '../errors';

export const HTTP_STATUS = {
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
  FACE_CUT_OFF: 422,
  MULTIPLE_FACES: 422,
  FACE_TOO_BLURRY: 422,
  FACE_TOO_DARK: 422,
  FACE_TOO_BRIGHT: 422,
  FACE_OCCLUDED: 422,
  FACE_TOO_SMALL: 422,
  DOCUMENT_NOT_FOUND: 422,
  DOCUMENT_TOO_BLURRY: 422,
  IMAGE_TOO_SMALL: 422,
  IMAGE_TOO_LARGE: 422,
  RATE_LIMIT: 429,
  INTERNAL_ERROR: 500,
} as const satisfies Record<ErrorCode, number>;

/**
 * The domain's one error type and its closed set of codes (docs/api.md "Errors"). The domain throws
 * these and knows nothing of HTTP: the API's table (lib/api/http-status.ts) maps each code to a status, and
 * the CLI prints them as they are. Tests assert on `code`, never on message text.
 */
import type { z } from 'zod';

export const ERROR_CODES = [
  'BAD_REQUEST',
  'MISSING_API_KEY',
  'INVALID_API_KEY',
  'MISSING_SIGNATURE',
  'INVALID_SIGNATURE',
  'NO_SECRET_KEYS',
  'MISSING_TIMESTAMP',
  'INVALID_TIMESTAMP',
  'CONSENT_REQUIRED',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'INVALID_STATUS',
  'CONSENT_VERSION_INACTIVE',
  'CONSENT_SHA256_MISMATCH',
  'KEY_LIMIT_REACHED',
  'KEY_ACTIVE',
  'LAST_OWNER',
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
  'DOCUMENT_UNREADABLE',
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

const BRAND = Symbol.for('open-verify/DomainError');

export class DomainError extends Error {
  /**
   * `instanceof` by brand, not by class identity: the production build bundles lib/ more than once (the
   * instrumentation hook that creates the analysis pool, each route), so an error made in one copy must still
   * be recognised by the translator of another (it was not: a queue-full 503 or a decode-failure 415 from
   * the pool became a 500).
   */
  static [Symbol.hasInstance](x: unknown): boolean {
    return typeof x === 'object' && x !== null && (x as Record<symbol, unknown>)[BRAND] === true;
  }
  readonly [BRAND] = true;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    /** How long a caller should wait before trying again (rate limits, a full queue): seconds, at least 1. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const notFound = (what = 'Resource') => new DomainError('NOT_FOUND', `${what} not found.`);

export function validationError(fields: Record<string, string[]>, message = 'The request has invalid fields.') {
  return new DomainError('VALIDATION_ERROR', message, { fields });
}

export function invalidStatus(message: string, details: Record<string, unknown>) {
  return new DomainError('INVALID_STATUS', message, details);
}

/** Parses with a zod schema; failures become VALIDATION_ERROR with details.fields = { field: [messages] }. */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, message?: string): z.infer<S> {
  const r = schema.safeParse(input);
  if (r.success) return r.data;
  // No prototype: a field named `__proto__` or `constructor` is a field like any other (it was a 500).
  const fields: Record<string, string[]> = Object.create(null);
  for (const issue of r.error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const k of issue.keys) (fields[[...issue.path, k].join('.')] ??= []).push('Unknown field.');
      continue;
    }
    const key = issue.path.length ? issue.path.join('.') : 'body';
    (fields[key] ??= []).push(issue.message);
  }
  throw validationError(fields, message);
}

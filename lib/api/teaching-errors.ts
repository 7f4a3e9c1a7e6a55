/**
 * Errors that say what to do (docs/api.md "Authentication"): a signature that matches no key carries the
 * canonical request as the server built it, so an integrator can compare it with what they signed; a verification
 * not found says in which mode it was looked for. Neither says anything the caller did not send or may not know:
 * no secret, no expected signature, nothing of the other mode.
 */
import type { AuthResult } from '../domain/auth/authenticate';
import { DomainError } from '../core/errors';
import { sha256Hex } from '../core/crypto/hash';
import { sortedFormFields } from '../domain/auth/canonical';

/** Where the signing rules are written (docs/api.md, section "Authentication"). */
export const SIGNING_DOCS = 'docs/api.md#authentication';

export type BuiltCanonical = {
  method: string;
  /** Path and query exactly as sent (requestTarget). */
  target: string;
  /** The signed request timestamp, when the request carried X-Request-Timestamp. */
  timestamp?: string;
} & ({ body: Uint8Array } | { fields: [string, string][]; fileHashes: string[] });

/** INVALID_SIGNATURE (a well-formed signature that matches no key), with the canonical request's parts as built here. */
export function signatureMismatch(c: BuiltCanonical): DomainError {
  const method = c.method.toUpperCase();
  const canonical: Record<string, unknown> = { method, path: c.target };
  if (c.timestamp !== undefined) canonical.timestamp = c.timestamp;
  let how: string;
  if ('body' in c) {
    canonical.body_length = c.body.byteLength;
    canonical.body_sha256 = sha256Hex(c.body);
    how = `HMAC-SHA256 of "${method}${c.target}" followed by the raw body (${c.body.byteLength} bytes here), no separators`;
  } else {
    // Multipart: the three lines of the canonical string (the files by their SHA-256).
    canonical.lines = [`${method}${c.target}`, sortedFormFields(c.fields), [...c.fileHashes].sort().join(',')];
    how = `HMAC-SHA256 of the three lines in details.canonical.lines joined by "\\n"`;
  }
  return new DomainError(
    'INVALID_SIGNATURE',
    `The signature does not match the request. The server signed ${c.timestamp !== undefined ? 'details.canonical.timestamp and "\\n", then ' : ''}${how}: compare details.canonical with what you signed (path without scheme or host, the query exactly as sent, the exact body bytes).`,
    { canonical, docs: SIGNING_DOCS },
  );
}

/** A verification not found by a request of one mode says which: "not found for this test key". */
export function notFoundInMode(e: unknown, auth: AuthResult | undefined): unknown {
  if (!(e instanceof DomainError) || e.code !== 'NOT_FOUND' || e.message !== 'Verification not found.' || !auth)
    return e;
  if (auth.via.kind === 'key')
    return new DomainError('NOT_FOUND', `Verification not found for this ${auth.mode} key.`, e.details);
  if (auth.via.kind === 'placeholder')
    return new DomainError('NOT_FOUND', 'Verification not found in test mode (the placeholder signature).', e.details);
  return e;
}

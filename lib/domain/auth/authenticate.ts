/**
 * Request authentication (docs/api.md "Authentication").
 * The workspace is named by X-API-Key; any non-deleted secret key of it may sign; the key that
 * validates sets the mode. Comparison is constant time over the canonical request bytes.
 */
import type { DbOrTx } from '@/lib/db/client';
import { DomainError } from '../../core/errors';
import { hexEqual, hmacSha256Hex } from '../../core/crypto/hash';
import { recordKeyUse, revealSecret, type Mode } from './keys';
import { log } from '../../core/log';
import { hot } from '@/lib/db/hot-queries';

import type { Workspace } from '@/lib/db/schema';
export type { Workspace };

export type AuthResult = {
  workspace: Workspace;
  mode: Mode;
  /** How the request was authenticated: a key id, the placeholder, unsigned (create only), or the capture link's token. */
  via: { kind: 'key'; keyId: string } | { kind: 'placeholder' } | { kind: 'unsigned' } | { kind: 'capture' };
};

export const PLACEHOLDER_SIGNATURE = 'placeholder';
const SIGNATURE_RE = /^[0-9a-f]{64}$/;

/**
 * Our extension against replays (docs/api.md "Request timestamps"): a signed request may carry this header, Unix
 * seconds; a workspace may require it. When present it must be within TIMESTAMP_TOLERANCE_S of the server's
 * clock, and it is signed: the canonical string becomes `timestamp + "\n" + canonical`. A canonical string
 * without a timestamp starts with the method, which is never digits followed by a newline, so the two forms
 * cannot be taken for each other: a timestamped request stripped of its header does not verify.
 */
export const REQUEST_TIMESTAMP_HEADER = 'x-request-timestamp';
export const TIMESTAMP_TOLERANCE_S = 300;

/** A workspace named by its key whose signature is still to be checked against the body. */
export type PendingSignature = {
  workspace: Workspace;
  signature: string;
  /** The request's timestamp (Unix seconds, as sent), signed in front of the canonical string. */
  timestamp?: string;
  keys: { id: string; mode: Mode; secretCiphertext: string }[];
  /** Where the matching key's last use is noted (at most once a minute per key). */
  db?: DbOrTx;
};

/**
 * Step one, from the headers alone (nothing of the body is read yet): the workspace X-API-Key names, and
 * the form of X-HMAC-Signature. An unknown key, a missing or malformed signature, the placeholder where it
 * is not allowed and a workspace without keys end here. Unsigned and placeholder requests are complete.
 */
export async function identify(
  db: DbOrTx,
  input: {
    apiKey: string | null;
    signature: string | null;
    timestamp?: string | null;
    allowUnsigned?: boolean;
    nowMs?: number;
  },
): Promise<{ auth: AuthResult } | { pending: PendingSignature }> {
  const apiKey = input.apiKey?.trim();
  if (!apiKey) throw new DomainError('MISSING_API_KEY', 'The X-API-Key header is required.');
  if (apiKey.length > 200) throw new DomainError('INVALID_API_KEY', 'The API key is not valid.');
  // One round trip: the workspace and its non-deleted keys.
  const rows = await hot(db, 'workspaceWithKeys').execute({ apiKey });
  if (rows.length === 0) throw new DomainError('INVALID_API_KEY', 'The API key is not valid.');
  const workspace = rows[0].workspace;

  const signature = input.signature;
  if (signature === null || signature === '') {
    if (input.allowUnsigned && !workspace.enforceSignature) {
      return { auth: { workspace, mode: 'live', via: { kind: 'unsigned' } } };
    }
    throw new DomainError('MISSING_SIGNATURE', 'The X-HMAC-Signature header is required.');
  }
  if (signature === PLACEHOLDER_SIGNATURE) {
    if (workspace.allowPlaceholderSignature) return { auth: { workspace, mode: 'test', via: { kind: 'placeholder' } } };
    throw new DomainError('INVALID_SIGNATURE', 'The placeholder signature is not enabled for this workspace.');
  }

  const keys = rows
    .filter((r) => r.keyId !== null)
    .map((r) => ({ id: r.keyId!, mode: r.keyMode!, secretCiphertext: r.keyCiphertext! }));
  if (keys.length === 0) {
    throw new DomainError('NO_SECRET_KEYS', 'The workspace has no secret keys; create one before signing requests.');
  }
  if (!SIGNATURE_RE.test(signature)) {
    throw new DomainError(
      'INVALID_SIGNATURE',
      'X-HMAC-Signature must be 64 lowercase hexadecimal characters (HMAC-SHA256 of the canonical request).',
    );
  }
  const timestamp = requestTimestamp(workspace, input.timestamp ?? null, input.nowMs ?? Date.now());
  return { pending: { workspace, signature, keys, db, ...(timestamp === undefined ? {} : { timestamp }) } };
}

/** The request's timestamp when it is acceptable; MISSING_TIMESTAMP or INVALID_TIMESTAMP (401) otherwise. */
function requestTimestamp(workspace: Workspace, header: string | null, nowMs: number): string | undefined {
  if (header === null) {
    if (!workspace.requireRequestTimestamp) return undefined;
    throw new DomainError(
      'MISSING_TIMESTAMP',
      'This workspace requires the X-Request-Timestamp header (Unix seconds), signed with the request.',
    );
  }
  const now = Math.floor(nowMs / 1000);
  if (!/^[0-9]{1,12}$/.test(header)) {
    throw new DomainError('INVALID_TIMESTAMP', 'X-Request-Timestamp must be the Unix time in whole seconds.', {
      reason: 'malformed',
      server_time: now,
    });
  }
  const skew = Number(header) - now;
  if (Math.abs(skew) > TIMESTAMP_TOLERANCE_S) {
    const reason = skew < 0 ? 'too_old' : 'in_the_future';
    throw new DomainError(
      'INVALID_TIMESTAMP',
      `X-Request-Timestamp is ${Math.abs(skew)} s ${skew < 0 ? 'old' : 'ahead of the server clock'}; at most ${TIMESTAMP_TOLERANCE_S} s either way.`,
      { reason, server_time: now },
    );
  }
  return header;
}

/** Step two: the HMAC of the canonical request (byte parts, see canonical.ts) under each key of the workspace. */
export function verifySignature(p: PendingSignature, canonical: (string | Uint8Array)[]): AuthResult {
  // Test every key, without stopping at the first match, so timing does not reveal which key matched.
  let match: PendingSignature['keys'][number] | undefined;
  if (p.timestamp !== undefined) canonical = [`${p.timestamp}\n`, ...canonical];
  for (const key of p.keys) {
    const expected = hmacSha256Hex(revealSecret(key), canonical);
    if (hexEqual(expected, p.signature) && !match) match = key;
  }
  if (!match) throw new DomainError('INVALID_SIGNATURE', 'The signature does not match the request.');
  // Not awaited: the answer does not wait for the bookkeeping, and a failure to note it fails no request.
  if (p.db)
    recordKeyUse(p.db, match.id).catch((e) =>
      log.warn('key last_used_at not recorded', { key: match!.id, error: (e as Error).message }),
    );
  return { workspace: p.workspace, mode: match.mode, via: { kind: 'key', keyId: match.id } };
}

/** Who acted, for the audit log: the key that signed, or how the request was let in. */
export const actorOf = (auth: Pick<AuthResult, 'via'>) =>
  auth.via.kind === 'key' ? `key:${auth.via.keyId}` : auth.via.kind;

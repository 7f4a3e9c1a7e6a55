/**
 * A request to a wallet, bound to one verification (docs/wallet.md "The request"): a fresh nonce and a fresh P-256
 * key for the response, asking only for `age_over_NN` of an mDL (NN the workspace's age threshold), valid for five
 * minutes and answered once. The row keeps what the response's session transcript is rebuilt from.
 */
import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { walletRequests, workspaces, type VerificationRow, type WalletRequestRow } from '@/lib/db/schema';
import type { DbOrTx } from '@/lib/db/client';
import { DomainError, invalidStatus, validationError } from '../../core/errors';
import { newId } from '../../core/ids';
import { audit } from '../audit/audit';
import { getConsentRecord } from '../consent';
import { openWithKek, sealWithKek } from '../../core/crypto/secretbox';
import { attemptsExhausted, WALLET_PROOF_STATUSES } from '../transitions/policy';
import {
  ageElement,
  annexCEncryptionInfo,
  newEncryptionKey,
  requestData,
  WALLET_REQUEST_TTL_MS,
  type RequestSpec,
  type WalletProtocol,
} from './protocol';

const keyAad = (requestId: string) => `wallet-request-key:${requestId}`;

/**
 * The verification may take a wallet proof now: an age verification, consent given, in a status that takes
 * media, with an attempt left. The same rule for a request and for its response.
 */
export async function assertWalletProofAllowed(db: DbOrTx, v: VerificationRow) {
  if (!(await getConsentRecord(db, v.id)))
    throw new DomainError('CONSENT_REQUIRED', 'The user must accept the consent text before a wallet is asked.');
  if (v.flow !== 'age')
    throw invalidStatus("A wallet's age proof cannot decide an identity (KYC) verification.", {
      status: v.status,
      flow: v.flow,
    });
  if (!WALLET_PROOF_STATUSES.has(v.status))
    throw invalidStatus(`A verification in status ${v.status} takes no wallet proof.`, { status: v.status });
  if (attemptsExhausted(v))
    throw invalidStatus('All submission attempts are used.', { status: v.status, attempts_remaining: 0 });
}

export type CreateWalletRequestInput = {
  verification: VerificationRow;
  protocol: WalletProtocol;
  origin: string;
  actor: string;
  requestId?: string;
  now?: Date;
};

export async function createWalletRequest(db: DbOrTx, input: CreateWalletRequestInput) {
  const v = input.verification;
  await assertWalletProofAllowed(db, v);
  const [ws] = await db
    .select({ ageThreshold: workspaces.ageThreshold })
    .from(workspaces)
    .where(eq(workspaces.id, v.workspaceId));
  const element = ageElement(ws.ageThreshold);
  if (!element)
    throw validationError({
      protocol: [`The workspace's age threshold (${ws.ageThreshold}) cannot be asked as age_over_NN (00 to 99).`],
    });

  const now = input.now ?? new Date();
  const id = newId('wrq');
  const key = await newEncryptionKey(id);
  const nonceBytes = randomBytes(32);
  const nonce = nonceBytes.toString('base64url');
  const spec: RequestSpec = {
    protocol: input.protocol,
    origin: input.origin,
    nonce,
    element,
    key,
    encryptionInfo: input.protocol === 'org-iso-mdoc' ? annexCEncryptionInfo(nonceBytes, key.publicJwk) : null,
  };
  const expiresAt = new Date(now.getTime() + WALLET_REQUEST_TTL_MS);
  await db.insert(walletRequests).values({
    id,
    verificationId: v.id,
    protocol: spec.protocol,
    origin: spec.origin,
    nonce,
    encryptionInfo: spec.encryptionInfo,
    element,
    publicJwk: JSON.stringify(key.publicJwk),
    privateKeySealed: sealWithKek(JSON.stringify(key.privateJwk), keyAad(id)),
    createdAt: now,
    expiresAt,
  });
  await audit(db, {
    workspaceId: v.workspaceId,
    verificationId: v.id,
    actor: input.actor,
    requestId: input.requestId,
    action: 'wallet.requested',
    data: { request_id: id, protocol: spec.protocol, origin: spec.origin, element },
  });
  return { id, protocol: spec.protocol, data: requestData(spec), expires_at: expiresAt.toISOString() };
}

/** A stored request as the verifier needs it; null once its key was used (it answered already). */
export function specOf(row: WalletRequestRow): RequestSpec | null {
  if (!row.privateKeySealed) return null;
  return {
    protocol: row.protocol,
    origin: row.origin,
    nonce: row.nonce,
    element: row.element,
    encryptionInfo: row.encryptionInfo,
    key: {
      publicJwk: JSON.parse(row.publicJwk),
      privateJwk: JSON.parse(openWithKek(row.privateKeySealed, keyAad(row.id)).toString('utf8')),
    },
  };
}

/**
 * Age proofs from digital ID wallets (docs/wallet.md): the requests this service made, one per call of the
 * browser's Digital Credentials API, and the issuing authorities' roots (IACA) the operator trusts.
 * Nothing of a credential is kept here: a request row holds what the service asked and its own one-time key;
 * the outcome of a proof lives on the verification (its decision, the claim's value and the issuer).
 */
import { sql } from 'drizzle-orm';
import { index, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { ts } from './columns';
import { bytea, verifications } from './verifications';
import { workspaces } from './workspaces';

export const WALLET_PROTOCOL_VALUES = ['openid4vp-v1-unsigned', 'org-iso-mdoc'] as const;

export const walletRequests = pgTable(
  'wallet_requests',
  {
    id: text('id').primaryKey(),
    verificationId: text('verification_id')
      .notNull()
      .references(() => verifications.id),
    protocol: text('protocol', { enum: WALLET_PROTOCOL_VALUES }).notNull(),
    /** The origin the response must be bound to (the page that calls the browser API). */
    origin: text('origin').notNull(),
    /** OpenID4VP: the nonce string; Annex C: the EncryptionInfo nonce, base64url. */
    nonce: text('nonce').notNull(),
    /** Annex C: the EncryptionInfo exactly as sent (base64url CBOR), part of the session transcript. */
    encryptionInfo: text('encryption_info'),
    /** The element asked for, `age_over_NN`. */
    element: text('element').notNull(),
    /** The public half of the one-time P-256 response key (JWK, with its kid). */
    publicJwk: text('public_jwk').notNull(),
    /** The private half, sealed under ENCRYPTION_KEY (bound to the request id); cleared once a response came. */
    privateKeySealed: text('private_key_sealed'),
    createdAt: ts('created_at').notNull(),
    expiresAt: ts('expires_at').notNull(),
    /** When a response for it arrived: a request is answered once. */
    usedAt: ts('used_at'),
    /** `verified`, or the refusal reason. */
    outcome: text('outcome'),
  },
  (t) => [index('wallet_requests_verification_idx').on(t.verificationId, t.createdAt)],
);
export type WalletRequestRow = typeof walletRequests.$inferSelect;

/**
 * IACA root certificates trusted to sign document signers: for one workspace, or for every workspace when
 * `workspace_id` is null. Nothing is trusted by default.
 */
export const walletTrustAnchors = pgTable(
  'wallet_trust_anchors',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').references(() => workspaces.id),
    subject: text('subject').notNull(),
    country: text('country').notNull(),
    notBefore: ts('not_before').notNull(),
    notAfter: ts('not_after').notNull(),
    fingerprintSha256: text('fingerprint_sha256').notNull(),
    der: bytea('der').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
    createdBy: text('created_by').notNull(),
  },
  (t) => [
    // The same root once per scope (every workspace, or one).
    uniqueIndex('wallet_trust_anchors_scope_idx').on(sql`coalesce(${t.workspaceId}, '')`, t.fingerprintSha256),
    index('wallet_trust_anchors_workspace_idx').on(t.workspaceId),
  ],
);
export type WalletTrustAnchorRow = typeof walletTrustAnchors.$inferSelect;

/**
 * The wallet's fixed vocabularies, without the cryptography (docs/wallet.md): the protocols a page may ask for and
 * the reasons a response is refused. Here on their own so the metrics (lib/core/observability/metrics.ts) can label by
 * them without loading the mdoc stack.
 */
export const WALLET_PROTOCOLS = ['openid4vp-v1-unsigned', 'org-iso-mdoc'] as const;
export type WalletProtocol = (typeof WALLET_PROTOCOLS)[number];

export const WALLET_REFUSAL_REASONS = [
  'untrusted_issuer',
  'invalid_signature',
  'digest_mismatch',
  'expired',
  'transcript_mismatch',
  'replayed',
  'claim_missing',
  'malformed',
] as const;
export type WalletRefusalReason = (typeof WALLET_REFUSAL_REASONS)[number];

/**
 * Every text column sealed with `sealWithKek` (`v1.<key id>.…`), with how its AAD is made from the row's id. A
 * column sealed under the key ring and missing here would become unreadable once an old key is destroyed
 * (lib/domain/encryption/rotate.ts re-wraps these), and would escape the check that a key ring reads a database
 * (lib/core/crypto/key-check.ts). It sits beside the key ring, below the capabilities that seal these columns,
 * so that the key check (asked by db/ and server/) needs nothing above lib/core/.
 */

/** The AAD of a workspace's secret key (lib/domain/auth/keys.ts). */
export const secretKeyAad = (keyId: string) => `secret_key:${keyId}`;
/** The AAD of a verification's capture link token (lib/domain/capture/auth.ts). */
export const captureTokenAad = (verificationId: string) => `capture-token:${verificationId}`;
/** The AAD of an admin's TOTP secret (lib/domain/admin/auth/sign-in.ts). */
export const totpAad = (userId: string) => `admin-totp:${userId}`;

export const SEALED_COLUMNS = {
  secret_keys: { table: 'secret_keys', column: 'secret_ciphertext', aad: secretKeyAad },
  signing_keys: { table: 'signing_keys', column: 'private_key_sealed', aad: (id: string) => `signing_key:${id}` },
  capture_links: { table: 'verifications', column: 'capture_token_ciphertext', aad: captureTokenAad },
  admin_totp_secrets: { table: 'admin_users', column: 'totp_secret', aad: totpAad },
  admin_totp_pending: { table: 'admin_users', column: 'totp_pending', aad: totpAad },
} as const;
export type SealedColumn = keyof typeof SEALED_COLUMNS;

/**
 * Every text column sealed with `sealWithKek` (`v1.<key id>.…`), with how its AAD is made from the row's id. A
 * column sealed under the key ring and missing here would become unreadable once an old key is destroyed
 * (lib/crypto/rotate.ts re-wraps these), and would escape the check that a key ring reads a database
 * (lib/crypto/key-check.ts).
 */
import { secretKeyAad } from '../auth/keys';
import { captureTokenAad } from '../capture/auth';
import { totpAad } from '../admin/auth/sign-in';

export const SEALED_COLUMNS = {
  secret_keys: { table: 'secret_keys', column: 'secret_ciphertext', aad: secretKeyAad },
  signing_keys: { table: 'signing_keys', column: 'private_key_sealed', aad: (id: string) => `signing_key:${id}` },
  capture_links: { table: 'verifications', column: 'capture_token_ciphertext', aad: captureTokenAad },
  admin_totp_secrets: { table: 'admin_users', column: 'totp_secret', aad: totpAad },
  admin_totp_pending: { table: 'admin_users', column: 'totp_pending', aad: totpAad },
} as const;
export type SealedColumn = keyof typeof SEALED_COLUMNS;

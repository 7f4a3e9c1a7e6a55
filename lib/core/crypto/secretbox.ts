/**
 * AES-256-GCM for secrets, data keys and media at rest. `aad` binds a ciphertext to its row, so a ciphertext
 * copied onto another row does not decrypt.
 *
 * Two layers:
 * - `aesGcmEncrypt` / `aesGcmDecrypt` with an explicit key: iv[12] | tag[16] | ciphertext. Media bytes and
 *   personal result fields are encrypted this way under their verification's own data key (data-keys.ts).
 * - `sealWithKek` / `openWithKek`: under the key ring's ENCRYPTION_KEY, as text `v1.<key id>.<base64>`. Secret
 *   API keys and the receipt signing key are stored so; data keys are wrapped with the same key ids in a column.
 *   Text without the `v1.` prefix is the format from before key ids (tried against every accepted key).
 */
import { createCipheriv, createDecipheriv } from 'node:crypto';
import { randomBytesPooled } from './random';
import { keyRing, KeyUnavailableError, type Kek } from './keyring';

export function aesGcmEncrypt(plain: Uint8Array | string, aad: string, key: Buffer): Buffer {
  const iv = randomBytesPooled(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad));
  const data = Buffer.concat([cipher.update(typeof plain === 'string' ? Buffer.from(plain) : plain), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), data]);
}

export function aesGcmDecrypt(boxed: Uint8Array, aad: string, key: Buffer): Buffer {
  const raw = Buffer.from(boxed.buffer, boxed.byteOffset, boxed.byteLength);
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
  decipher.setAAD(Buffer.from(aad));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]);
}

const PREFIX = 'v1.';

/** Encrypts under the primary key of the ring: `v1.<key id>.<base64>`. */
export function sealWithKek(plain: Uint8Array | string, aad: string, kek: Kek = keyRing().primary): string {
  return `${PREFIX}${kek.id}.${aesGcmEncrypt(plain, aad, kek.key).toString('base64')}`;
}

/** The key id a sealed text names; null for the format from before key ids. */
export function sealedKeyId(sealed: string): string | null {
  if (!sealed.startsWith(PREFIX)) return null;
  return sealed.slice(PREFIX.length, sealed.indexOf('.', PREFIX.length));
}

export function openWithKek(sealed: string, aad: string): Buffer {
  const ring = keyRing();
  const id = sealedKeyId(sealed);
  if (id !== null) {
    const kek = ring.accepted.get(id);
    if (!kek) throw new KeyUnavailableError(id);
    return aesGcmDecrypt(Buffer.from(sealed.slice(PREFIX.length + id.length + 1), 'base64'), aad, kek.key);
  }
  // Before key ids: whichever accepted key authenticates it (GCM's tag makes a wrong key fail, never misread).
  const raw = Buffer.from(sealed, 'base64');
  for (const kek of [ring.primary, ...ring.accepted.values()]) {
    try {
      return aesGcmDecrypt(raw, aad, kek.key);
    } catch {
      /* not this key */
    }
  }
  throw new KeyUnavailableError('(no key id)');
}

/** Wraps a data key (or any short secret) under the primary key: the key id goes in its own column. */
export function wrapWithKek(
  plain: Uint8Array,
  aad: string,
  kek: Kek = keyRing().primary,
): { kekId: string; wrapped: Buffer } {
  return { kekId: kek.id, wrapped: aesGcmEncrypt(plain, aad, kek.key) };
}

export function unwrapWithKek(kekId: string, wrapped: Uint8Array, aad: string): Buffer {
  const kek = keyRing().accepted.get(kekId);
  if (!kek) throw new KeyUnavailableError(kekId);
  return aesGcmDecrypt(wrapped, aad, kek.key);
}

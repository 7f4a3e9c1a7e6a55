/**
 * AES-256-GCM for secrets and media at rest. Output: base64(iv[12] | tag[16] | ciphertext).
 * The key comes from ENCRYPTION_KEY (32 bytes, base64); `aad` binds a ciphertext to its row so a
 * ciphertext copied onto another row does not decrypt.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { env } from '../env';

function key(): Buffer {
  const k = env().ENCRYPTION_KEY;
  if (!k) throw new Error('ENCRYPTION_KEY is not set (the launcher sets it for the embedded database)');
  return Buffer.from(k, 'base64');
}

export function encrypt(plain: Buffer | string, aad: string, k: Buffer = key()): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', k, iv);
  cipher.setAAD(Buffer.from(aad));
  const data = Buffer.concat([cipher.update(typeof plain === 'string' ? Buffer.from(plain) : plain), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), data]).toString('base64');
}

export function decrypt(boxed: string, aad: string, k: Buffer = key()): Buffer {
  const raw = Buffer.from(boxed, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', k, raw.subarray(0, 12));
  decipher.setAAD(Buffer.from(aad));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]);
}

/** Binary form for media: iv[12] | tag[16] | ciphertext, as a Buffer (stored in bytea). */
export function encryptBytes(plain: Uint8Array, aad: string, k: Buffer = key()): Buffer {
  return Buffer.from(encrypt(Buffer.from(plain), aad, k), 'base64');
}

export function decryptBytes(boxed: Uint8Array, aad: string, k: Buffer = key()): Buffer {
  return decrypt(Buffer.from(boxed).toString('base64'), aad, k);
}

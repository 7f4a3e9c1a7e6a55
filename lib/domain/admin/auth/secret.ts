/** The admin area's secret: AUTH_SECRET, or one derived from ENCRYPTION_KEY so the embedded default needs no new secret. */
import { createHmac, hkdfSync } from 'node:crypto';
import { env } from '../../../core/env';

export function authSecret(): string {
  const e = env();
  if (e.AUTH_SECRET) return e.AUTH_SECRET;
  if (!e.ENCRYPTION_KEY) throw new Error('ENCRYPTION_KEY is not set (the launcher sets it for the embedded database)');
  return Buffer.from(
    hkdfSync('sha256', Buffer.from(e.ENCRYPTION_KEY, 'base64'), Buffer.alloc(0), 'open-verify admin sessions', 32),
  ).toString('base64');
}

/** HMAC-SHA256 under a key of its own for `purpose`, so one secret never signs two kinds of thing. */
export function purposeMac(purpose: string, data: string): Buffer {
  const key = createHmac('sha256', authSecret()).update(`open-verify:${purpose}`).digest();
  return createHmac('sha256', key).update(data).digest();
}

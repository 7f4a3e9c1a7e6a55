/**
 * Photos in the admin area are served by GET /admin/media/{token}, decrypted on the fly. The token is
 * made for one page view: it names the media, the admin session that viewed the page and an expiry,
 * signed with HMAC (a key derived from the auth secret). So the URL cannot be guessed, does not work in
 * another browser or after sign-out (another session), and stops working after LINK_SECONDS; and each
 * fetch re-checks the admin's membership of the media's workspace and is written to the audit log.
 */
import { timingSafeEqual } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { media, verifications } from '@/lib/db/schema';
import type { DbOrTx } from '@/lib/db/client';
import { audit } from '../audit/audit';
import { notFound } from '../../core/errors';
import { mediaStore } from '../media/storage';
import { actorId, assertCan, type Actor } from './access';
import { purposeMac } from './auth/secret';

export const LINK_SECONDS = 600;

const sign = (payload: string) => purposeMac('admin-media-link', payload).subarray(0, 24).toString('base64url');

export function mediaLink(actor: Pick<Actor, 'sessionId'>, mediaId: string, now = new Date()): string {
  const exp = Math.floor(now.getTime() / 1000) + LINK_SECONDS;
  const payload = Buffer.from(`${mediaId}|${actor.sessionId}|${exp}`).toString('base64url');
  return `/admin/media/${payload}.${sign(payload)}`;
}

/** The media id a token grants this session, or null (bad signature, another session, expired). */
export function readMediaToken(token: string, sessionId: string, now = new Date()): string | null {
  if (typeof token !== 'string' || token.length > 300) return null;
  const [payload, mac] = token.split('.');
  if (!payload || !mac) return null;
  const expected = Buffer.from(sign(payload));
  const got = Buffer.from(mac);
  if (got.length !== expected.length || !timingSafeEqual(got, expected)) return null;
  const [mediaId, sid, exp] = Buffer.from(payload, 'base64url').toString().split('|');
  if (sid !== sessionId || !(Number(exp) * 1000 > now.getTime())) return null;
  return mediaId || null;
}

/** The decrypted image behind a token, for this actor; NOT_FOUND for anything else. Audited. */
export async function openMedia(
  db: DbOrTx,
  actor: Actor,
  token: string,
  now = new Date(),
): Promise<{ bytes: Buffer; contentType: string }> {
  const mediaId = readMediaToken(token, actor.sessionId, now);
  if (!mediaId) throw notFound('Media');
  const [m] = await db
    .select({
      id: media.id,
      type: media.type,
      side: media.side,
      contentType: media.contentType,
      verificationId: media.verificationId,
      workspaceId: verifications.workspaceId,
    })
    .from(media)
    .innerJoin(verifications, eq(verifications.id, media.verificationId))
    .where(eq(media.id, mediaId));
  if (!m) throw notFound('Media');
  assertCan(actor, 'case.read', m.workspaceId, 'Media');
  const bytes = await mediaStore.get(db, m.id);
  // Purged by the retention schedule: the record stays, the picture is gone.
  if (!bytes) throw notFound('Media');
  await audit(db, {
    workspaceId: m.workspaceId,
    verificationId: m.verificationId,
    actor: actorId(actor),
    action: 'media.viewed',
    data: { media_id: m.id, type: m.type, side: m.side },
  });
  return { bytes, contentType: m.contentType };
}

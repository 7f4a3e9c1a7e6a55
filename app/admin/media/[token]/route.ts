/** GET /admin/media/{token} – a case photo, decrypted for this admin session only (lib/domain/admin/media-links.ts). */
import { getDb } from '@/lib/db/client';
import { currentSession } from '@/app/admin/_auth/current';
import { openMedia } from '@/lib/domain/admin/media-links';
import { DomainError } from '@/lib/core/errors';

const HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'cross-origin-resource-policy': 'same-origin',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
};

export async function GET(_req: Request, ctx: { params: Promise<{ token: string }> }) {
  const s = await currentSession();
  const { token } = await ctx.params;
  try {
    if (!s || s.stage !== 'full') throw new DomainError('NOT_FOUND', 'Media not found.');
    const { bytes, contentType } = await openMedia(getDb(), s.actor, token);
    return new Response(new Uint8Array(bytes), {
      headers: { ...HEADERS, 'content-type': contentType, 'content-disposition': 'inline' },
    });
  } catch (e) {
    if (e instanceof DomainError && e.code === 'NOT_FOUND')
      return new Response('Not found', { status: 404, headers: { ...HEADERS, 'content-type': 'text/plain' } });
    throw e;
  }
}

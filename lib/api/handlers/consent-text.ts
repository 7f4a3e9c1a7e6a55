import { getDb } from '@/lib/db/client';
import { getConsentText } from '../../domain/consent';
import { notFound } from '../../core/errors';
import { isLocale, type Locale } from '../../core/i18n/locales';
import { errorResponse } from '../respond';
import { newId } from '../../core/ids';

/**
 * A consent version's text byte for byte, publicly, as text/plain; charset=utf-8 (docs/api.md "Consent"):
 * `/consent/{id}.txt` is the English text, `/consent/{id}/{locale}.txt` each language's (English too). A language
 * the version has no text in is 404: the URL of a text is never answered with another language's.
 */
async function serve(id: string | undefined, locale: Locale | null): Promise<Response> {
  const row = id && locale ? await getConsentText(getDb(), Number(id), locale) : undefined;
  if (!row) {
    const requestId = newId('req');
    return errorResponse(notFound('Consent text'), requestId, { 'x-request-id': requestId });
  }
  return new Response(Buffer.from(row.text, 'utf8'), {
    headers: {
      'content-type': 'text/plain; charset=utf-8',
      'content-language': row.locale,
      'x-content-sha256': row.textSha256,
      'cache-control': 'public, max-age=300',
      'x-content-type-options': 'nosniff',
    },
  });
}

/** GET /consent/{id}.txt */
export async function serveConsentText(_req: Request, ctx: { params: Promise<{ file: string }> }): Promise<Response> {
  const { file } = await ctx.params;
  return serve(/^(\d{1,9})\.txt$/.exec(file)?.[1], 'en');
}

/** GET /consent/{id}/{locale}.txt */
export async function serveConsentTextIn(
  _req: Request,
  ctx: { params: Promise<{ file: string; locale: string }> },
): Promise<Response> {
  const { file, locale } = await ctx.params;
  const l = /^(.+)\.txt$/.exec(locale)?.[1];
  return serve(/^\d{1,9}$/.exec(file)?.[0], isLocale(l) ? l : null);
}

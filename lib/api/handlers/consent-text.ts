import { getDb } from '@/db/client';
import { getConsentVersion } from '../../consent';
import { notFound } from '../../errors';
import { errorResponse } from '../respond';
import { newId } from '../../ids';

/** Serves a consent version's text byte for byte, publicly, as text/plain; charset=utf-8. */
export async function serveConsentText(_req: Request, ctx: { params: Promise<{ file: string }> }): Promise<Response> {
  const { file } = await ctx.params;
  const m = /^(\d{1,9})\.txt$/.exec(file);
  const row = m ? await getConsentVersion(getDb(), Number(m[1])) : undefined;
  if (!row) {
    const requestId = newId('req');
    return errorResponse(notFound('Consent text'), requestId, { 'x-request-id': requestId });
  }
  return new Response(Buffer.from(row.text, 'utf8'), {
    headers: {
      'content-type': 'text/plain; charset=utf-8',
      'x-content-sha256': row.textSha256,
      'cache-control': 'public, max-age=300',
      'x-content-type-options': 'nosniff',
    },
  });
}

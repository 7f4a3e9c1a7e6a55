/** GET /admin/workspaces/{id}/usage/csv – the usage page's figures as CSV (same checks as the page: owners and operators). */
import { getDb } from '@/lib/db/client';
import { currentSession } from '@/app/admin/_auth/current';
import { usageCsv, usageFor } from '@/lib/domain/admin/usage';
import { DomainError } from '@/lib/core/errors';

export async function GET(req: Request, ctx: { params: Promise<{ id: string }> }) {
  const s = await currentSession();
  const { id } = await ctx.params;
  try {
    if (!s || s.stage !== 'full') throw new DomainError('NOT_FOUND', 'Not found.');
    const days = Number(new URL(req.url).searchParams.get('days')) || 30;
    const u = await usageFor(getDb(), s.actor, id, { days });
    return new Response(usageCsv(u), {
      headers: {
        'content-type': 'text/csv; charset=utf-8',
        'content-disposition': `attachment; filename="usage-${u.workspace.id}-${u.range.days}d.csv"`,
        'cache-control': 'no-store',
      },
    });
  } catch (e) {
    if (e instanceof DomainError && e.code === 'NOT_FOUND')
      return new Response('Not found', {
        status: 404,
        headers: { 'content-type': 'text/plain', 'cache-control': 'no-store' },
      });
    throw e;
  }
}

/**
 * Search over every verification the actor may read: by id or external_id, status, mode, creation
 * date range and workspace, newest first, with keyset pagination on (created_at, id). Indexes in
 * lib/db/schema/verifications.ts; measured by npm run bench:admin.
 */
import { and, desc, eq, gte, lt, or } from 'drizzle-orm';
import { z } from 'zod';
import { VERIFICATION_STATUSES, verifications, workspaces } from '@/lib/db/schema';
import type { DbOrTx } from '@/lib/db/client';
import { parseOrThrow } from '../../core/errors';
import { UUID_RE } from '../../core/ids';
import { DAY_MS } from '../../core/time';
import { inScope, scopeFor, type Actor } from './access';
import { afterCursor, cursorTime, decodeCursor, pageOf } from './cursor';
import { LIST_COLUMNS } from './queue';

/** The statuses a search can filter on (the search form lists them). */
export { VERIFICATION_STATUSES };

export const SEARCH_PAGE = 50;

const day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'A date as YYYY-MM-DD.')
  .refine((s) => !Number.isNaN(new Date(`${s}T00:00:00Z`).getTime()), 'Not a date.');
const blankToUndefined = (v: unknown) => (v === '' || v === null ? undefined : v);

/** The search form's fields, as they come from the URL (empty fields are no filter). */
export const searchFilters = z.object({
  q: z.preprocess(blankToUndefined, z.string().trim().max(255).optional()),
  workspace: z.preprocess(blankToUndefined, z.string().max(64).optional()),
  status: z.preprocess(blankToUndefined, z.enum(VERIFICATION_STATUSES).optional()),
  mode: z.preprocess(blankToUndefined, z.enum(['test', 'live']).optional()),
  from: z.preprocess(blankToUndefined, day.optional()),
  to: z.preprocess(blankToUndefined, day.optional()),
  cursor: z.preprocess(blankToUndefined, z.string().max(200).optional()),
});

export async function searchVerifications(db: DbOrTx, actor: Actor, raw: unknown, limit = SEARCH_PAGE) {
  const f = parseOrThrow(searchFilters, raw, 'The search has invalid fields.');
  const scope = scopeFor(actor, 'case.read', f.workspace);
  const q = f.q?.toLowerCase();
  const after = decodeCursor(f.cursor);
  const where = and(
    inScope(scope, verifications.workspaceId),
    // An id (a UUID) or an external_id: both exact matches, each on its index.
    f.q
      ? q && UUID_RE.test(q)
        ? or(eq(verifications.id, q), eq(verifications.externalId, f.q))
        : eq(verifications.externalId, f.q)
      : undefined,
    f.status ? eq(verifications.status, f.status) : undefined,
    f.mode ? eq(verifications.mode, f.mode) : undefined,
    f.from ? gte(verifications.createdAt, new Date(`${f.from}T00:00:00Z`)) : undefined,
    f.to ? lt(verifications.createdAt, new Date(new Date(`${f.to}T00:00:00Z`).getTime() + DAY_MS)) : undefined,
    after ? afterCursor(verifications.createdAt, verifications.id, after, 'desc') : undefined,
  );
  const rows = await db
    .select({
      ...LIST_COLUMNS,
      status: verifications.status,
      reason: verifications.reason,
      createdAt: verifications.createdAt,
      completedAt: verifications.completedAt,
      cursorAt: cursorTime(verifications.createdAt),
    })
    .from(verifications)
    .innerJoin(workspaces, eq(workspaces.id, verifications.workspaceId))
    .where(where)
    .orderBy(desc(verifications.createdAt), desc(verifications.id))
    .limit(limit + 1);
  return { filters: f, ...pageOf(rows, limit) };
}

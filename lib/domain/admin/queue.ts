/**
 * The review queue: verifications in `review` (every test-mode submission; live `refer` cases), per
 * workspace and mode, oldest first (by when they entered review), with counts per tab.
 */
import { and, asc, count, desc, eq, ne, sql } from 'drizzle-orm';
import { verifications, workspaces } from '@/lib/db/schema';
import type { DbOrTx } from '@/lib/db/client';
import { inScope, scopeFor, type Actor } from './access';
import { afterCursor, cursorTime, pageOf, type Cursor } from './cursor';

export type Mode = 'test' | 'live';
export const QUEUE_PAGE = 50;

/** What a list of verifications shows of each (the queue and the search). */
export const LIST_COLUMNS = {
  id: verifications.id,
  workspaceId: verifications.workspaceId,
  workspaceName: workspaces.name,
  mode: verifications.mode,
  externalId: verifications.externalId,
  flow: verifications.flow,
  checkMethod: verifications.checkMethod,
};

export async function reviewQueue(
  db: DbOrTx,
  actor: Actor,
  input: { workspaceId?: string | null; mode: Mode; after?: Cursor | null; limit?: number; now?: Date },
) {
  const now = (input.now ?? new Date()).getTime();
  const limit = input.limit ?? QUEUE_PAGE;
  const scope = scopeFor(actor, 'case.read', input.workspaceId);
  const after = input.after
    ? afterCursor(verifications.statusChangedAt, verifications.id, input.after, 'asc')
    : undefined;
  const rows = await db
    .select({
      ...LIST_COLUMNS,
      attemptsUsed: verifications.attemptsUsed,
      result: verifications.result,
      createdAt: verifications.createdAt,
      submittedAt: verifications.submittedAt,
      inReviewSince: verifications.statusChangedAt,
      cursorAt: cursorTime(verifications.statusChangedAt),
    })
    .from(verifications)
    .innerJoin(workspaces, eq(workspaces.id, verifications.workspaceId))
    .where(
      and(
        eq(verifications.status, 'review'),
        eq(verifications.mode, input.mode),
        inScope(scope, verifications.workspaceId),
        after,
      ),
    )
    .orderBy(asc(verifications.statusChangedAt), asc(verifications.id))
    .limit(limit + 1);
  const page = pageOf(rows, limit);
  return { items: page.items.map((c) => ({ ...c, waitingMs: now - c.inReviewSince.getTime() })), next: page.next };
}

/** Cases waiting per workspace and mode, within what the actor may read. */
/**
 * The tab the queue opens on when the address names none: the one with cases waiting. Live when both have (or
 * neither), test when only test cases wait (a new integrator's first submission is a test one).
 */
export function openingMode(requested: string | null, waiting: { live: number; test: number }): Mode {
  if (requested === 'test' || requested === 'live') return requested;
  return waiting.live === 0 && waiting.test > 0 ? 'test' : 'live';
}

export async function queueCounts(db: DbOrTx, actor: Actor): Promise<{ workspaceId: string; mode: Mode; n: number }[]> {
  const scope = scopeFor(actor, 'case.read');
  const rows = await db
    .select({ workspaceId: verifications.workspaceId, mode: verifications.mode, n: count() })
    .from(verifications)
    .where(and(eq(verifications.status, 'review'), inScope(scope, verifications.workspaceId)))
    .groupBy(verifications.workspaceId, verifications.mode);
  return rows.map((r) => ({ ...r, n: Number(r.n) }));
}

/** The cases before and after this one in its queue (same workspace and mode): the keyboard's j / k. */
export async function queueNeighbours(db: DbOrTx, v: { id: string; workspaceId: string; mode: Mode; status: string }) {
  const base = and(
    eq(verifications.status, 'review'),
    eq(verifications.workspaceId, v.workspaceId),
    eq(verifications.mode, v.mode),
    ne(verifications.id, v.id),
  );
  // A decided case has left the queue: "next" is then the oldest case still waiting.
  const here = sql`(select ${verifications.statusChangedAt} from ${verifications} where ${verifications.id} = ${v.id})`;
  const inQueue = v.status === 'review';
  const [next] = await db
    .select({ id: verifications.id })
    .from(verifications)
    .where(
      and(
        base,
        inQueue ? sql`(${verifications.statusChangedAt}, ${verifications.id}) > (${here}, ${v.id})` : undefined,
      ),
    )
    .orderBy(asc(verifications.statusChangedAt), asc(verifications.id))
    .limit(1);
  if (!inQueue) return { previous: null, next: next?.id ?? null };
  const [previous] = await db
    .select({ id: verifications.id })
    .from(verifications)
    .where(and(base, sql`(${verifications.statusChangedAt}, ${verifications.id}) < (${here}, ${v.id})`))
    .orderBy(desc(verifications.statusChangedAt), desc(verifications.id))
    .limit(1);
  return { previous: previous?.id ?? null, next: next?.id ?? null };
}

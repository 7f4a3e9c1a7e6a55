/**
 * A workspace's usage by UTC day (issue 15), the figures the usage page and its CSV are made of: verifications
 * created, decisions made by status and reason, and the submit-to-decision times of approvals and declines.
 *
 * Closed days are rolled up once into `usage_days` (job `usage-rollup`, `rollUpUsage` below): a verification
 * is counted on the day it was created and its decision on the day it was made, and neither `created_at` nor
 * `completed_at` (set when a verification reaches a final status, after which nothing changes it) is written
 * again. A day is rolled up once it has been over for `SETTLE_MS`, so a transaction that began before midnight
 * has committed. Reading (`usageDays`) takes the rolled-up days from `usage_days` and the days since from
 * `verifications`, with the same aggregate (`aggregateDays`), so the two cannot disagree; a workspace never
 * rolled up is read entirely live (correct, only slower).
 */
import { and, eq, gte, inArray, isNull, lt, lte, or, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '@/lib/db/client';
import { usageDays as usageDaysTable, usageRollups, workspaces } from '@/lib/db/schema';
import { DAY_MS, utcDay } from '../../core/time';

/** How long after midnight (UTC) a day is rolled up. */
export const SETTLE_MS = 60 * 60_000;

/** The figures of one workspace, mode and UTC day. */
export type DayFigures = {
  day: string;
  mode: string;
  created: number;
  /** `[status, reason or null, count]` */
  decisions: [string, string | null, number][];
  /** Submit-to-decision times of approvals and declines, rounded (`roundDuration`), and how many took each. */
  durations: Record<string, number>;
};

const dayStart = (day: string) => new Date(`${day}T00:00:00.000Z`);
const addDays = (day: string, n: number) => utcDay(dayStart(day).getTime() + n * DAY_MS);

/**
 * A submit-to-decision time to the tenth of a second (the CSV's precision; the page shows seconds under a
 * minute, whole minutes above). Medians are taken over these. The same in SQL: `DURATION_KEY` (`round` of a
 * numeric rounds half away from zero, as Math.round does for these non-negative values).
 */
export const roundDuration = (ms: number) => Math.round(Math.max(0, ms) / 100) * 100;
const DURATION_KEY = sql`(round(greatest(0, extract(epoch from completed_at - submitted_at) * 1000) / 100) * 100)::bigint`;

/** The median of a histogram `{ value: count }`, interpolated between the two middle values for an even count (as percentile_cont(0.5)). */
export function medianOf(hist: Map<number, number>): number | null {
  const values = [...hist.entries()].filter(([, n]) => n > 0).sort((a, b) => a[0] - b[0]);
  const total = values.reduce((s, [, n]) => s + n, 0);
  if (total === 0) return null;
  const at = (k: number) => {
    let seen = 0;
    for (const [v, n] of values) {
      seen += n;
      if (k < seen) return v;
    }
    return values[values.length - 1][0];
  };
  return (at(Math.floor((total - 1) / 2)) + at(Math.ceil((total - 1) / 2))) / 2;
}

/**
 * One workspace's figures by UTC day and mode, straight from `verifications` (index-only scans:
 * `verifications_workspace_idx`, `verifications_ws_completed_idx`): verifications created from `start` to
 * `end` (excluded, or included with `endInclusive`), and decisions made in the same range from `detailFrom` on
 * (default `start`).
 */
export async function aggregateDays(
  db: DbOrTx,
  workspaceId: string,
  range: { start: Date; end: Date; endInclusive?: boolean; detailFrom?: Date },
): Promise<DayFigures[]> {
  const s = range.start.toISOString();
  const d = (range.detailFrom && range.detailFrom > range.start ? range.detailFrom : range.start).toISOString();
  const e = range.end.toISOString();
  const before = range.endInclusive ? sql`<=` : sql`<`;
  const rows = await db.execute<{
    kind: 'c' | 'd';
    day: string;
    mode: string;
    status: string | null;
    reason: string | null;
    ms: string | null;
    n: number;
  }>(sql`
    select 'c' as kind, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD') as day, mode, null::text as status, null::text as reason, null::bigint as ms, count(*)::int as n
    from verifications
    where workspace_id = ${workspaceId} and mode in ('live', 'test') and created_at >= ${s}::timestamptz and created_at ${before} ${e}::timestamptz
    group by 2, 3
    union all
    -- Decisions and their times in one scan: a group per status, reason and time (no time but for approvals and declines).
    select 'd', to_char(completed_at at time zone 'UTC', 'YYYY-MM-DD'), mode, status, reason,
      case when status in ('approved', 'declined') and submitted_at is not null then ${DURATION_KEY} end, count(*)::int
    from verifications
    where workspace_id = ${workspaceId} and mode in ('live', 'test') and completed_at >= ${d}::timestamptz and completed_at ${before} ${e}::timestamptz
    group by 2, 3, 4, 5, 6`);
  const out = new Map<
    string,
    Omit<DayFigures, 'decisions'> & { decisions: Map<string, DayFigures['decisions'][number]> }
  >();
  for (const r of rows) {
    const k = `${r.day}|${r.mode}`;
    let f = out.get(k);
    if (!f) out.set(k, (f = { day: r.day, mode: r.mode, created: 0, decisions: new Map(), durations: {} }));
    const n = Number(r.n);
    if (r.kind === 'c') {
      f.created += n;
      continue;
    }
    const dk = `${r.status}|${r.reason ?? ''}`;
    const decision = f.decisions.get(dk) ?? [r.status!, r.reason, 0];
    decision[2] += n;
    f.decisions.set(dk, decision);
    if (r.ms !== null) f.durations[String(Number(r.ms))] = (f.durations[String(Number(r.ms))] ?? 0) + n;
  }
  return [...out.values()]
    .map((f) => ({ ...f, decisions: [...f.decisions.values()] }))
    .sort((a, b) => a.day.localeCompare(b.day) || a.mode.localeCompare(b.mode));
}

/** The last UTC day that may be rolled up at `now`: the day before the one `SETTLE_MS` ago. */
export const lastSettledDay = (now: Date) => addDays(utcDay(now.getTime() - SETTLE_MS), -1);

/**
 * A workspace's days from `from` (a UTC day) to `now`: the rolled-up ones from usage_days, the rest live.
 * Decisions and durations are read only from `detailFrom` on (the page needs them for its period alone; the
 * creations it needs for twelve months).
 */
export async function usageDays(
  db: DbOrTx,
  workspaceId: string,
  opts: { from: string; detailFrom: string; now: Date },
): Promise<DayFigures[]> {
  const [state] = await db
    .select({ through: usageRollups.rolledThrough })
    .from(usageRollups)
    .where(eq(usageRollups.workspaceId, workspaceId));
  const yesterday = addDays(utcDay(opts.now), -1);
  // The last day read from usage_days: the workspace's roll-up, at most yesterday, none if it ends before `from`.
  const through =
    state?.through && state.through >= opts.from ? (state.through < yesterday ? state.through : yesterday) : null;
  const tailFrom = through ? addDays(through, 1) : opts.from;
  const [rolled, tail] = await Promise.all([
    through
      ? db
          .select({
            day: usageDaysTable.day,
            mode: usageDaysTable.mode,
            created: usageDaysTable.created,
            decisions: sql<
              DayFigures['decisions']
            >`case when ${usageDaysTable.day} >= ${opts.detailFrom}::date then ${usageDaysTable.decisions} else '[]'::jsonb end`,
            durations: sql<
              DayFigures['durations']
            >`case when ${usageDaysTable.day} >= ${opts.detailFrom}::date then ${usageDaysTable.durations} else '{}'::jsonb end`,
          })
          .from(usageDaysTable)
          .where(
            and(
              eq(usageDaysTable.workspaceId, workspaceId),
              gte(usageDaysTable.day, opts.from),
              lte(usageDaysTable.day, through),
            ),
          )
      : Promise.resolve([] as DayFigures[]),
    aggregateDays(db, workspaceId, {
      start: dayStart(tailFrom),
      end: opts.now,
      endInclusive: true,
      detailFrom: dayStart(opts.detailFrom),
    }),
  ]);
  return [...rolled, ...tail];
}

export type RollupResult = { workspaces: number; days: number; through: string; more: boolean };

/**
 * Rolls up every closed day not yet in usage_days, a workspace at a time, each in one transaction that locks
 * the workspace's usage_rollups row (SKIP LOCKED: two servers running it at once take different workspaces,
 * and a day is rolled up once). The first run for a workspace totals its whole history; each later run, the
 * days since. Stops starting workspaces after `budgetMs`; the next run continues.
 */
export async function rollUpUsage(
  db: Db,
  opts: { now?: Date; workspaceIds?: string[]; budgetMs?: number } = {},
): Promise<RollupResult> {
  const now = opts.now ?? new Date();
  const through = lastSettledDay(now);
  const end = dayStart(addDays(through, 1));
  const started = Date.now();
  const only = opts.workspaceIds;
  await db.execute(sql`
    insert into usage_rollups (workspace_id) select id from workspaces ${only ? sql`where ${inArray(workspaces.id, only)}` : sql``}
    on conflict (workspace_id) do nothing`);
  const due = or(isNull(usageRollups.rolledThrough), lt(usageRollups.rolledThrough, through));
  let done = 0;
  let days = 0;
  for (;;) {
    if (opts.budgetMs !== undefined && Date.now() - started > opts.budgetMs) break;
    const rolled = await db.transaction(async (tx) => {
      const [ws] = await tx
        .select()
        .from(usageRollups)
        .where(and(due, only ? inArray(usageRollups.workspaceId, only) : undefined))
        .orderBy(sql`${usageRollups.rolledThrough} nulls first`, usageRollups.workspaceId)
        .limit(1)
        .for('update', { skipLocked: true });
      if (!ws) return null;
      const start = ws.rolledThrough ? dayStart(addDays(ws.rolledThrough, 1)) : new Date(0);
      const figures = await aggregateDays(tx, ws.workspaceId, { start, end });
      if (figures.length > 0) {
        await tx.execute(sql`
          insert into usage_days (workspace_id, mode, day, created, decisions, durations)
          select ${ws.workspaceId}, x.mode, x.day::date, x.created, x.decisions, x.durations
          from jsonb_to_recordset(${JSON.stringify(figures)}::jsonb) as x(day text, mode text, created int, decisions jsonb, durations jsonb)
          on conflict (workspace_id, mode, day) do update set created = excluded.created, decisions = excluded.decisions, durations = excluded.durations`);
      }
      await tx
        .update(usageRollups)
        .set({ rolledThrough: through, updatedAt: now })
        .where(eq(usageRollups.workspaceId, ws.workspaceId));
      return figures.length;
    });
    if (rolled === null) return { workspaces: done, days, through, more: false };
    done++;
    days += rolled;
  }
  return { workspaces: done, days, through, more: true };
}

/**
 * Forgets the roll-up of some workspaces (or all), so that the next `rollUpUsage` totals their days again from
 * `verifications`: for an operator who changed verifications by hand. Until then the page reads them live.
 */
export async function resetUsageRollup(db: Db, workspaceIds?: string[]): Promise<{ workspaces: number }> {
  return db.transaction(async (tx) => {
    const reset = await tx
      .update(usageRollups)
      .set({ rolledThrough: null, updatedAt: new Date() })
      .where(workspaceIds ? inArray(usageRollups.workspaceId, workspaceIds) : undefined)
      .returning({ id: usageRollups.workspaceId });
    await tx.delete(usageDaysTable).where(workspaceIds ? inArray(usageDaysTable.workspaceId, workspaceIds) : undefined);
    return { workspaces: reset.length };
  });
}

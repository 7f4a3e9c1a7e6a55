/**
 * A workspace's usage (issue 15): verifications created per day and per month (live and test), decisions
 * made in the period by status and reason, the approval rate and the median time from submit to decision
 * (live). Days and months are UTC. The days come from lib/domain/usage/days.ts: closed days from the daily roll-up,
 * the days since from `verifications` (measured by npm run bench:admin at 100,000 verifications a workspace).
 * The median is over submit-to-decision times to the tenth of a second (what the CSV shows).
 */
import { sql } from 'drizzle-orm';
import type { DbOrTx } from '@/lib/db/client';
import { managedWorkspace } from './workspaces';
import { DAY_MS as DAY, utcDay } from '../../core/time';
import { medianOf, usageDays } from '../usage/days';
import type { Actor } from './access';

export const USAGE_RANGES = [7, 30, 90] as const;

export type DayRow = { day: string; live: number; test: number };
export type DecisionRow = { mode: 'live' | 'test'; status: string; reason: string | null; count: number };

export async function usageFor(
  db: DbOrTx,
  actor: Actor,
  workspaceId: string,
  opts: { days?: number; now?: Date } = {},
) {
  const ws = await managedWorkspace(db, actor, workspaceId, 'usage.read');
  const now = opts.now ?? new Date();
  const days = (USAGE_RANGES as readonly number[]).includes(opts.days ?? 30) ? (opts.days ?? 30) : 30;
  // From the start of the UTC day `days - 1` days ago to now: `days` whole or partial days.
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const from = new Date(today - (days - 1) * DAY);
  const monthsFrom = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 11, 1));

  const [days_, inReview] = await Promise.all([
    usageDays(db, ws.id, { from: utcDay(monthsFrom), detailFrom: utcDay(from), now }),
    db.execute<{ mode: string; n: number }>(sql`
      select mode, count(*)::int as n from verifications where workspace_id = ${ws.id} and status = 'review' and mode in ('live', 'test') group by 1`),
  ]);

  const byDay = new Map<string, DayRow>();
  for (let t = from.getTime(); t <= today; t += DAY)
    byDay.set(utcDay(new Date(t)), { day: utcDay(new Date(t)), live: 0, test: 0 });
  const byMonth = new Map<string, { month: string; live: number; test: number }>();
  for (let i = 0; i < 12; i++) {
    const m = new Date(Date.UTC(monthsFrom.getUTCFullYear(), monthsFrom.getUTCMonth() + i, 1))
      .toISOString()
      .slice(0, 7);
    byMonth.set(m, { month: m, live: 0, test: 0 });
  }
  const decisionCounts = new Map<string, DecisionRow>();
  const durations = new Map<number, number>();
  for (const f of days_) {
    if (f.mode !== 'live' && f.mode !== 'test') continue;
    const mode = f.mode;
    const month = byMonth.get(f.day.slice(0, 7));
    if (month) month[mode] += f.created;
    const day = byDay.get(f.day);
    if (!day) continue; // before the period: only its month counts
    day[mode] += f.created;
    for (const [status, reason, n] of f.decisions) {
      const k = `${mode}|${status}|${reason ?? ''}`;
      const row = decisionCounts.get(k) ?? { mode, status, reason, count: 0 };
      row.count += n;
      decisionCounts.set(k, row);
    }
    if (mode === 'live')
      for (const [ms, n] of Object.entries(f.durations))
        durations.set(Number(ms), (durations.get(Number(ms)) ?? 0) + n);
  }
  const decisionRows: DecisionRow[] = [...decisionCounts.values()].sort(
    (a, b) =>
      a.mode.localeCompare(b.mode) ||
      b.count - a.count ||
      a.status.localeCompare(b.status) ||
      String(a.reason).localeCompare(String(b.reason)),
  );
  const live = decisionRows.filter((d) => d.mode === 'live');
  const approved = live.filter((d) => d.status === 'approved').reduce((s, d) => s + d.count, 0);
  const declined = live.filter((d) => d.status === 'declined').reduce((s, d) => s + d.count, 0);
  const perDay = [...byDay.values()];
  const median = medianOf(durations);
  return {
    workspace: { id: ws.id, name: ws.name },
    range: { days, from, to: now },
    perDay,
    perMonth: [...byMonth.values()],
    totals: {
      live: perDay.reduce((s, d) => s + d.live, 0),
      test: perDay.reduce((s, d) => s + d.test, 0),
      approved,
      declined,
      approvalRate: approved + declined > 0 ? approved / (approved + declined) : null,
      medianDecisionMs: median,
      inReview: Object.fromEntries([...inReview].map((r) => [r.mode, Number(r.n)])) as Partial<
        Record<'live' | 'test', number>
      >,
    },
    decisions: decisionRows,
  };
}

export type Usage = Awaited<ReturnType<typeof usageFor>>;

const csvCell = (v: unknown) => {
  const s = v === null || v === undefined ? '' : String(v);
  return /[",\n\r]/.test(s) || /^[=+\-@]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

/** The usage as CSV: one section per table, each with its header row (a spreadsheet opens it as is). */
export function usageCsv(u: Usage): string {
  const rows: unknown[][] = [
    ['section', 'period', 'mode', 'status', 'reason', 'count'],
    ...u.perDay.flatMap((d) => [
      ['per_day', d.day, 'live', '', '', d.live],
      ['per_day', d.day, 'test', '', '', d.test],
    ]),
    ...u.perMonth.flatMap((m) => [
      ['per_month', m.month, 'live', '', '', m.live],
      ['per_month', m.month, 'test', '', '', m.test],
    ]),
    ...u.decisions.map((d) => [
      'decisions',
      `${utcDay(u.range.from)}..${utcDay(u.range.to)}`,
      d.mode,
      d.status,
      d.reason ?? '',
      d.count,
    ]),
    [
      'approval_rate',
      `${utcDay(u.range.from)}..${utcDay(u.range.to)}`,
      'live',
      '',
      '',
      u.totals.approvalRate === null ? '' : u.totals.approvalRate.toFixed(4),
    ],
    [
      'median_submit_to_decision_seconds',
      `${utcDay(u.range.from)}..${utcDay(u.range.to)}`,
      'live',
      '',
      '',
      u.totals.medianDecisionMs === null ? '' : (u.totals.medianDecisionMs / 1000).toFixed(1),
    ],
  ];
  return rows.map((r) => r.map(csvCell).join(',')).join('\r\n') + '\r\n';
}

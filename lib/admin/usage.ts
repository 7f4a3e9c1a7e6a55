/**
 * A workspace's usage (issue 15): verifications created per day and per month (live and test), decisions
 * made in the period by status and reason, the approval rate and the median time from submit to decision
 * (live). Days and months are UTC. Each figure is one aggregate over an index (measured by npm run
 * bench:admin on 100,000 verifications a workspace): creations over `(workspace_id, mode, created_at)`,
 * decisions over `(workspace_id, mode, completed_at, status, reason, submitted_at)` (index-only).
 */
import { sql } from 'drizzle-orm';
import type { DbOrTx } from '@/db/client';
import { managedWorkspace } from './workspaces';
import type { Actor } from './access';

export const USAGE_RANGES = [7, 30, 90] as const;
export type UsageRange = (typeof USAGE_RANGES)[number];
const DAY = 86_400_000;

export type DayRow = { day: string; live: number; test: number };
export type DecisionRow = { mode: 'live' | 'test'; status: string; reason: string | null; count: number };

const utcDay = (d: Date) => d.toISOString().slice(0, 10);

export async function usageFor(db: DbOrTx, actor: Actor, workspaceId: string, opts: { days?: number; now?: Date } = {}) {
  const ws = await managedWorkspace(db, actor, workspaceId, 'usage.read');
  const now = opts.now ?? new Date();
  const days = (USAGE_RANGES as readonly number[]).includes(opts.days ?? 30) ? (opts.days ?? 30) : 30;
  // From the start of the UTC day `days - 1` days ago to now: `days` whole or partial days.
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const from = new Date(today - (days - 1) * DAY);
  const monthsFrom = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 11, 1));
  const fromIso = from.toISOString();
  const monthsIso = monthsFrom.toISOString();
  const nowIso = now.toISOString();

  const [perDay, perMonth, decisions, timing, inReview] = await Promise.all([
    db.execute<{ day: string; mode: string; n: number }>(sql`
      select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD') as day, mode, count(*)::int as n
      from verifications
      where workspace_id = ${ws.id} and mode in ('live', 'test') and created_at >= ${fromIso}::timestamptz and created_at <= ${nowIso}::timestamptz
      group by 1, 2`),
    db.execute<{ month: string; mode: string; n: number }>(sql`
      select to_char(created_at at time zone 'UTC', 'YYYY-MM') as month, mode, count(*)::int as n
      from verifications
      where workspace_id = ${ws.id} and mode in ('live', 'test') and created_at >= ${monthsIso}::timestamptz and created_at <= ${nowIso}::timestamptz
      group by 1, 2`),
    db.execute<{ mode: 'live' | 'test'; status: string; reason: string | null; n: number }>(sql`
      select mode, status, reason, count(*)::int as n
      from verifications
      where workspace_id = ${ws.id} and mode in ('live', 'test') and completed_at >= ${fromIso}::timestamptz and completed_at <= ${nowIso}::timestamptz
      group by 1, 2, 3`),
    db.execute<{ median_ms: number | null; decided: number }>(sql`
      select (percentile_cont(0.5) within group (order by extract(epoch from completed_at - submitted_at)) * 1000)::float8 as median_ms,
             count(*)::int as decided
      from verifications
      where workspace_id = ${ws.id} and mode = 'live' and completed_at >= ${fromIso}::timestamptz and completed_at <= ${nowIso}::timestamptz
        and submitted_at is not null and status in ('approved', 'declined')`),
    db.execute<{ mode: string; n: number }>(sql`
      select mode, count(*)::int as n from verifications where workspace_id = ${ws.id} and status = 'review' and mode in ('live', 'test') group by 1`),
  ]);

  const byDay = new Map<string, DayRow>();
  for (let t = from.getTime(); t <= today; t += DAY) byDay.set(utcDay(new Date(t)), { day: utcDay(new Date(t)), live: 0, test: 0 });
  for (const r of perDay) {
    const row = byDay.get(r.day);
    if (row) row[r.mode as 'live' | 'test'] = Number(r.n);
  }
  const byMonth = new Map<string, { month: string; live: number; test: number }>();
  for (let i = 0; i < 12; i++) {
    const m = new Date(Date.UTC(monthsFrom.getUTCFullYear(), monthsFrom.getUTCMonth() + i, 1)).toISOString().slice(0, 7);
    byMonth.set(m, { month: m, live: 0, test: 0 });
  }
  for (const r of perMonth) {
    const row = byMonth.get(r.month);
    if (row) row[r.mode as 'live' | 'test'] = Number(r.n);
  }
  const decisionRows: DecisionRow[] = [...decisions]
    .map((r) => ({ mode: r.mode, status: r.status, reason: r.reason, count: Number(r.n) }))
    .sort((a, b) => a.mode.localeCompare(b.mode) || b.count - a.count || a.status.localeCompare(b.status) || String(a.reason).localeCompare(String(b.reason)));
  const live = decisionRows.filter((d) => d.mode === 'live');
  const approved = live.filter((d) => d.status === 'approved').reduce((s, d) => s + d.count, 0);
  const declined = live.filter((d) => d.status === 'declined').reduce((s, d) => s + d.count, 0);
  const t = [...timing][0];
  const days_ = [...byDay.values()];
  return {
    workspace: { id: ws.id, name: ws.name },
    range: { days, from, to: now },
    perDay: days_,
    perMonth: [...byMonth.values()],
    totals: {
      live: days_.reduce((s, d) => s + d.live, 0),
      test: days_.reduce((s, d) => s + d.test, 0),
      approved,
      declined,
      approvalRate: approved + declined > 0 ? approved / (approved + declined) : null,
      medianDecisionMs: t?.median_ms === null || t?.median_ms === undefined ? null : Number(t.median_ms),
      inReview: Object.fromEntries([...inReview].map((r) => [r.mode, Number(r.n)])) as Partial<Record<'live' | 'test', number>>,
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
    ...u.perDay.flatMap((d) => [['per_day', d.day, 'live', '', '', d.live], ['per_day', d.day, 'test', '', '', d.test]]),
    ...u.perMonth.flatMap((m) => [['per_month', m.month, 'live', '', '', m.live], ['per_month', m.month, 'test', '', '', m.test]]),
    ...u.decisions.map((d) => ['decisions', `${utcDay(u.range.from)}..${utcDay(u.range.to)}`, d.mode, d.status, d.reason ?? '', d.count]),
    ['approval_rate', `${utcDay(u.range.from)}..${utcDay(u.range.to)}`, 'live', '', '', u.totals.approvalRate === null ? '' : u.totals.approvalRate.toFixed(4)],
    ['median_submit_to_decision_seconds', `${utcDay(u.range.from)}..${utcDay(u.range.to)}`, 'live', '', '', u.totals.medianDecisionMs === null ? '' : (u.totals.medianDecisionMs / 1000).toFixed(1)],
  ];
  return rows.map((r) => r.map(csvCell).join(',')).join('\r\n') + '\r\n';
}

/**
 * The usage page's daily roll-up against the real database: the page's figures are the same before and after
 * a roll-up (for 7, 30 and 90 days and twelve months, over a year and a half of made-up history with
 * verifications on both sides of midnight), the page then reads closed days from usage_days, a day is rolled
 * up once it has settled and only once, two roll-ups at once share the work, and times to decide are rounded
 * alike in SQL and in JavaScript before the median is taken.
 */
import { describe, expect, it } from 'vitest';
import { and, eq, sql } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { usageDays, usageRollups } from '@/lib/db/schema';
import { makeWorkspace } from '@/test/helpers/factories';
import { makeAdmin } from '@/test/helpers/admin-factories';
import { usageFor } from '@/lib/domain/admin/usage';
import { aggregateDays, lastSettledDay, medianOf, rollUpUsage, roundDuration } from './days';

const NOW = new Date('2026-11-20T12:00:00.000Z');
const DAY = 86_400_000;
const STATUSES = [
  'approved',
  'approved',
  'approved',
  'declined',
  'review',
  'expired',
  'abandoned',
  'created',
  'started',
  'resubmission_requested',
] as const;

type Row = {
  mode: 'live' | 'test';
  status: string;
  reason: string | null;
  created: Date;
  submitted: Date | null;
  completed: Date | null;
};

/** A deterministic history: `n` verifications over the 540 days before `now`, some a millisecond either side of midnight. */
function history(n: number, now: Date, seed = 1): Row[] {
  let x = seed;
  const rnd = () => (x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const rows: Row[] = [];
  for (let i = 0; i < n; i++) {
    const status = STATUSES[Math.floor(rnd() * STATUSES.length)];
    const mode = rnd() < 0.8 ? 'live' : 'test';
    let created = new Date(now.getTime() - rnd() * 540 * DAY);
    if (i % 10 === 0) created = new Date(Math.floor(created.getTime() / DAY) * DAY - (i % 20 === 0 ? 1 : 0)); // 00:00:00.000 or 23:59:59.999
    const final = ['approved', 'declined', 'expired', 'abandoned'].includes(status);
    const submitted = ['created', 'started'].includes(status) ? null : new Date(created.getTime() + 30_000);
    // Times to decide from a few milliseconds to two days: under and over a minute.
    const took = rnd() < 0.7 ? Math.floor(rnd() * 60_000) : Math.floor(rnd() * 2 * DAY);
    let completed = final ? new Date((submitted ?? created).getTime() + took) : null;
    if (completed && completed > now) completed = null; // not decided yet at `now`
    rows.push({
      mode,
      status: completed || !final ? status : 'review',
      reason: status === 'declined' ? (rnd() < 0.5 ? 'age_below_threshold' : 'fraud_detected') : null,
      created,
      submitted,
      completed,
    });
  }
  return rows;
}

async function insert(workspaceId: string, rows: Row[]) {
  await getDb().execute(sql`
    insert into verifications (id, workspace_id, mode, status, flow, check_method, capture_token_hash, attempts_used, reason, created_at, submitted_at, completed_at, status_changed_at, updated_at)
    select gen_random_uuid()::text, ${workspaceId}, x.mode, x.status, 'age', 'estimation', md5(random()::text), 0, x.reason, x.created, x.submitted, x.completed, coalesce(x.completed, x.created), coalesce(x.completed, x.created)
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as x(mode text, status text, reason text, created timestamptz, submitted timestamptz, completed timestamptz)`);
}

async function rolledThrough(workspaceId: string) {
  const [r] = await getDb().select().from(usageRollups).where(eq(usageRollups.workspaceId, workspaceId));
  return r?.rolledThrough ?? null;
}

describe('usage roll-up', () => {
  it('the page shows the same figures before and after the roll-up, and then reads closed days from usage_days', async () => {
    const ws = (await makeWorkspace()).workspace.id;
    const owner = await makeAdmin({ workspaces: [[ws, 'owner']] });
    const rows = history(3000, NOW);
    await insert(ws, rows);
    const read = () => Promise.all([7, 30, 90].map((days) => usageFor(getDb(), owner, ws, { days, now: NOW })));
    const live = await read();
    expect(await rolledThrough(ws)).toBeNull();

    // The live reading agrees with a count of the rows themselves.
    const from90 = new Date(Date.UTC(2026, 10, 20) - 89 * DAY);
    const in90 = (d: Date | null) => d !== null && d >= from90 && d <= NOW;
    expect(live[2].totals.live).toBe(rows.filter((r) => r.mode === 'live' && in90(r.created)).length);
    expect(live[2].totals.approved).toBe(
      rows.filter((r) => r.mode === 'live' && r.status === 'approved' && in90(r.completed)).length,
    );
    const times = rows
      .filter((r) => r.mode === 'live' && ['approved', 'declined'].includes(r.status) && in90(r.completed))
      .map((r) => roundDuration(r.completed!.getTime() - r.submitted!.getTime()));
    expect(live[2].totals.medianDecisionMs).toBe(
      medianOf(times.reduce((m, t) => m.set(t, (m.get(t) ?? 0) + 1), new Map<number, number>())),
    );
    const oct = new Date('2026-10-01T00:00:00.000Z');
    const nov = new Date('2026-11-01T00:00:00.000Z');
    expect(live[0].perMonth.find((m) => m.month === '2026-10')!.live).toBe(
      rows.filter((r) => r.mode === 'live' && r.created >= oct && r.created < nov).length,
    );

    const r = await rollUpUsage(getDb(), { now: NOW, workspaceIds: [ws] });
    expect(r).toMatchObject({ workspaces: 1, through: '2026-11-19', more: false });
    expect(r.days).toBeGreaterThan(500);
    expect(await rolledThrough(ws)).toBe('2026-11-19');
    expect(await read()).toEqual(live);

    // Closed days are read from usage_days: a changed row there shows on the page (today's is still live).
    const day = '2026-11-19';
    await getDb()
      .update(usageDays)
      .set({ created: sql`${usageDays.created} + 1000` })
      .where(and(eq(usageDays.workspaceId, ws), eq(usageDays.mode, 'live'), eq(usageDays.day, day)));
    const changed = await usageFor(getDb(), owner, ws, { days: 7, now: NOW });
    expect(changed.perDay.find((d) => d.day === day)!.live).toBe(
      live[0].perDay.find((d) => d.day === day)!.live + 1000,
    );
    await getDb()
      .update(usageDays)
      .set({ created: sql`${usageDays.created} - 1000` })
      .where(and(eq(usageDays.workspaceId, ws), eq(usageDays.mode, 'live'), eq(usageDays.day, day)));

    // Today (not rolled up) is read live: a verification made now shows at once.
    await insert(ws, [
      {
        mode: 'live',
        status: 'created',
        reason: null,
        created: new Date(NOW.getTime() - 60_000),
        submitted: null,
        completed: null,
      },
    ]);
    const later = await usageFor(getDb(), owner, ws, { days: 7, now: NOW });
    expect(later.perDay.at(-1)!.live).toBe(live[0].perDay.at(-1)!.live + 1);
  }, 120_000);

  it('a day is rolled up an hour after it ends, once; the next run takes only the days since', async () => {
    expect(lastSettledDay(new Date('2026-11-20T00:59:59.999Z'))).toBe('2026-11-18');
    expect(lastSettledDay(new Date('2026-11-20T01:00:00.000Z'))).toBe('2026-11-19');
    const ws = (await makeWorkspace()).workspace.id;
    const lateEvening = new Date('2026-11-19T23:59:59.999Z');
    await insert(ws, [
      {
        mode: 'live',
        status: 'approved',
        reason: null,
        created: new Date(lateEvening.getTime() - 60_000),
        submitted: new Date(lateEvening.getTime() - 30_000),
        completed: lateEvening,
      },
    ]);
    expect(await rollUpUsage(getDb(), { now: new Date('2026-11-20T00:30:00.000Z'), workspaceIds: [ws] })).toMatchObject(
      { workspaces: 1, days: 0, through: '2026-11-18' },
    );
    expect(await getDb().select().from(usageDays).where(eq(usageDays.workspaceId, ws))).toEqual([]);
    expect(await rollUpUsage(getDb(), { now: new Date('2026-11-20T00:45:00.000Z'), workspaceIds: [ws] })).toMatchObject(
      { workspaces: 0 },
    );
    expect(await rollUpUsage(getDb(), { now: new Date('2026-11-20T01:00:00.000Z'), workspaceIds: [ws] })).toMatchObject(
      { workspaces: 1, days: 1, through: '2026-11-19' },
    );
    const [d] = await getDb().select().from(usageDays).where(eq(usageDays.workspaceId, ws));
    expect(d).toMatchObject({
      day: '2026-11-19',
      mode: 'live',
      created: 1,
      decisions: [['approved', null, 1]],
      durations: { '30000': 1 },
    });
    expect(await rollUpUsage(getDb(), { now: new Date('2026-11-20T23:00:00.000Z'), workspaceIds: [ws] })).toMatchObject(
      { workspaces: 0 },
    );
  });

  it('two roll-ups at once take different workspaces, and every day is counted once', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const ws = (await makeWorkspace()).workspace.id;
      await insert(ws, history(200, NOW, i + 7));
      ids.push(ws);
    }
    const [a, b] = await Promise.all([
      rollUpUsage(getDb(), { now: NOW, workspaceIds: ids }),
      rollUpUsage(getDb(), { now: NOW, workspaceIds: ids }),
    ]);
    expect(a.workspaces + b.workspaces).toBe(6);
    for (const ws of ids) {
      const rolled = await getDb().select().from(usageDays).where(eq(usageDays.workspaceId, ws));
      const fresh = await aggregateDays(getDb(), ws, { start: new Date(0), end: new Date('2026-11-20T00:00:00.000Z') });
      const key = (f: { day: string; mode: string }) => `${f.day}|${f.mode}`;
      expect(new Map(rolled.map((f) => [key(f), f.created]))).toEqual(new Map(fresh.map((f) => [key(f), f.created])));
    }
  }, 60_000);

  it('times to decide are kept to the tenth of a second, alike in SQL and here, and the median is taken over them', async () => {
    const times = [37, 149, 150, 151, 250, 59_949, 59_950, 60_499, 60_500, 3_600_449];
    expect(times.map(roundDuration)).toEqual([0, 100, 200, 200, 300, 59_900, 60_000, 60_500, 60_500, 3_600_400]);
    const ws = (await makeWorkspace()).workspace.id;
    const submitted = new Date('2026-11-18T10:00:00.000Z');
    await insert(
      ws,
      times.map((t) => ({
        mode: 'live' as const,
        status: 'approved',
        reason: null,
        created: submitted,
        submitted,
        completed: new Date(submitted.getTime() + t),
      })),
    );
    const [day] = await aggregateDays(getDb(), ws, {
      start: new Date('2026-11-18T00:00:00.000Z'),
      end: new Date('2026-11-19T00:00:00.000Z'),
    });
    const expected: Record<string, number> = {};
    for (const t of times) expected[String(roundDuration(t))] = (expected[String(roundDuration(t))] ?? 0) + 1;
    expect(day.durations).toEqual(expected);
    expect(medianOf(new Map())).toBeNull();
    expect(medianOf(new Map([[100, 1]]))).toBe(100);
    expect(
      medianOf(
        new Map([
          [100, 1],
          [300, 1],
        ]),
      ),
    ).toBe(200);
    expect(
      medianOf(
        new Map([
          [300, 2],
          [100, 1],
          [900, 1],
        ]),
      ),
    ).toBe(300);
    expect(
      medianOf(
        new Map([
          [100, 2],
          [900, 2],
        ]),
      ),
    ).toBe(500);
  });

  it('a workspace made today has nothing to roll up, and is marked rolled through the last settled day', async () => {
    const ws = (await makeWorkspace()).workspace.id;
    const now = new Date();
    await rollUpUsage(getDb(), { now, workspaceIds: [ws] });
    expect(await rolledThrough(ws)).toBe(lastSettledDay(now));
    expect(await getDb().select().from(usageDays).where(eq(usageDays.workspaceId, ws))).toEqual([]);
  });
});

/**
 * The embedded engine's maintenance (lib/db/embedded/maintenance.ts, issue 44): what autovacuum does on a server, run by
 * the process that owns the engine, at start-up and then periodically; and `npm run ops -- db:maintain`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { connect, type Db, type DbHandle } from '@/lib/db/client';
import { applyMigrations } from '@/lib/db/migrate';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './pglite-server';
import { scheduleMaintenance, type MaintenanceReport } from './maintenance';
import { createVerification } from '@/lib/domain/verifications/create';
import { takeRateLimit } from '@/lib/domain/ratelimit';
import { makeWorkspace } from '@/test/helpers/factories';
import { plansById } from '@/test/helpers/stale-plans';
import { ops } from '@/test/helpers/ops-process';

type Stats = {
  last_analyze: Date | null;
  last_vacuum: Date | null;
  n_mod_since_analyze: number;
  n_dead_tup: number;
  reltuples: number;
};
async function stats(db: Db, table: string): Promise<Stats> {
  await db.execute(sql`select pg_stat_force_next_flush()`);
  const [r] = await db.execute<Stats>(sql`
    select s.last_analyze, s.last_vacuum, s.n_mod_since_analyze::int, s.n_dead_tup::int, c.reltuples
    from pg_stat_user_tables s join pg_class c on c.oid = s.relid where s.relname = ${table}`);
  return { ...r, reltuples: Number(r.reltuples) };
}

/** The operator CLI on this engine (its URL as DATABASE_URL, as an operator of a server on PostgreSQL would run it). */
async function opsOn(url: string, ...args: string[]) {
  const saved = process.env.DATABASE_URL;
  process.env.DATABASE_URL = url;
  try {
    return await ops(...args);
  } finally {
    process.env.DATABASE_URL = saved;
  }
}

/** Waits for the scheduler's next pass that starts after now to finish. */
function nextPass(passes: MaintenanceReport[], timeoutMs = 60_000): Promise<MaintenanceReport> {
  const seen = passes.length;
  return new Promise((resolve, reject) => {
    const until = Date.now() + timeoutMs;
    const t = setInterval(() => {
      // The pass in progress may have read its counts before now: the one after it.
      if (passes.length >= seen + 2) {
        clearInterval(t);
        resolve(passes[passes.length - 1]);
      } else if (Date.now() > until) {
        clearInterval(t);
        reject(new Error('no maintenance pass'));
      }
    }, 20);
  });
}

describe('maintenance of the embedded database', () => {
  const dirs: string[] = [];
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  async function engine(dataDir?: string): Promise<{ pg: EmbeddedPostgres; h: DbHandle }> {
    const pg = await startEmbeddedPostgres({ dataDir });
    await applyMigrations(pg.url);
    const h = connect(pg.url, { max: 4 });
    cleanups.push(async () => {
      await h.close();
      await pg.stop();
    });
    return { pg, h };
  }

  it('a workspace grown past the threshold finds its table analysed, and the read by id on the primary key', async () => {
    const { pg, h } = await engine();
    const passes: MaintenanceReport[] = [];
    const lines: string[] = [];
    const m = scheduleMaintenance(pg, {
      intervalMs: 200,
      quietMs: 20,
      log: (l) => lines.push(l),
      onPass: (r) => passes.push(r),
    });
    cleanups.push(() => m.stop());
    await m.startup;
    const w = await makeWorkspace({}, { db: h.db });
    // 300 creates, through the operation the API calls: past 50 rows + 10 % of the table.
    let id = '';
    for (let i = 0; i < 300; i++)
      id = (
        await createVerification(h.db, {
          workspace: w.workspace,
          keyMode: 'test',
          fields: { external_id: `u-${i}` },
          actor: 'key:test',
        })
      ).row.id;
    await nextPass(passes);

    const s = await stats(h.db, 'verifications');
    expect(s.last_analyze).not.toBeNull();
    // What changed since the last analysis is below the threshold, and the planner no longer takes the table for empty.
    expect(s.n_mod_since_analyze).toBeLessThanOrEqual(50 + 0.1 * 300);
    expect(s.reltuples).not.toBe(-1);
    expect(
      lines.some((l) =>
        /database maintenance \(periodic\): .*analysed verifications \(\d[\d,]* rows changed since its last analysis/.test(
          l,
        ),
      ),
    ).toBe(true);
    const pk = ['Index Scan using verifications_pkey'];
    expect(await plansById(h.db, id, w.workspace.id)).toEqual({
      'GET /v1/verifications/{id}, custom plan': pk,
      'GET /v1/verifications/{id}, generic plan': pk,
      'status change, custom plan': pk,
      'status change, generic plan': pk,
    });
  }, 600_000);

  it('vacuums a table once its dead rows pile up (db:maintain)', async () => {
    const { pg, h } = await engine();
    const passes: MaintenanceReport[] = [];
    const m = scheduleMaintenance(pg, {
      intervalMs: 60_000,
      quietMs: 20,
      log: () => {},
      onPass: (r) => passes.push(r),
    });
    cleanups.push(() => m.stop());
    await m.startup;
    // The rate-limit buckets of 300 keys, then 280 of them gone: 280 dead rows in a table of 20 (an update's old
    // versions are dead rows too, but the engine prunes some of those as it reads the page: not a count to test on).
    for (let i = 0; i < 300; i++) await takeRateLimit(h.db, `api:ws-${i}`, 1_000_000, Date.now());
    await h.db.execute(
      sql`delete from rate_limits where key not in (select 'api:ws-' || g from generate_series(0, 19) g)`,
    );
    const before = await stats(h.db, 'rate_limits');
    expect(before.n_dead_tup).toBeGreaterThanOrEqual(280);

    const r = await opsOn(pg.url, 'db:maintain');
    expect(r.code).toBe(0);
    const done = (r.out.maintenance as { done: { table: string; action: string; reasons: string[] }[] }).done;
    expect(done.find((d) => d.table === 'rate_limits')).toMatchObject({
      action: 'vacuum+analyze',
      reasons: [expect.stringMatching(/^\d[\d,]* dead rows \(threshold \d+\)$/), expect.any(String)],
    });
    const after = await stats(h.db, 'rate_limits');
    expect(after.last_vacuum).not.toBeNull();
    expect(after.n_dead_tup).toBe(0);
    // Nothing is due any more: a dry run lists nothing.
    const again = await opsOn(pg.url, 'db:maintain', '--dry-run');
    expect((again.out.maintenance as { due: unknown[] }).due).toEqual([]);
  }, 600_000);

  it('at start-up analyses a table with data that was never analysed (a data directory of an older version)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ov-maint-'));
    dirs.push(dir);
    // An older version: verifications written, never analysed; fewer changes than the periodic threshold.
    const first = await engine(dir);
    const w = await makeWorkspace({}, { db: first.h.db });
    for (let i = 0; i < 30; i++)
      await createVerification(first.h.db, { workspace: w.workspace, keyMode: 'test', fields: {}, actor: 'key:test' });
    expect((await stats(first.h.db, 'verifications')).last_analyze).toBeNull();
    await cleanups.pop()!();

    const { pg, h } = await engine(dir);
    const m = scheduleMaintenance(pg, { intervalMs: 60_000, log: () => {} });
    cleanups.push(() => m.stop());
    const r = await m.startup;
    expect(r.done.find((d) => d.table === 'verifications')).toMatchObject({
      action: 'analyze',
      reasons: ['holds data and was never analysed'],
    });
    const s = await stats(h.db, 'verifications');
    expect(s.last_analyze).not.toBeNull();
    expect(s.reltuples).toBe(30);
  }, 600_000);
});

/**
 * What autovacuum does on a PostgreSQL server, for the embedded engine, which runs neither autovacuum nor
 * autoanalyze (PGlite is one backend, with no background workers): ANALYZE a table once enough of it changed,
 * VACUUM it once dead rows or new rows pile up, with PostgreSQL's own default thresholds, from the engine's own
 * counts (pg_stat_user_tables). A pass runs at start-up, then every `intervalMs` (scheduleMaintenance), one
 * statement at a time in a quiet moment, so requests wait at most one statement. The thresholds and the timing:
 * docs/architecture.md "Notes behind the code"; docs/deploy.md "Maintenance of the embedded database".
 */
import type { EmbeddedPostgres } from './pglite-server';

/** Runs one statement and returns its rows. */
export type Query = (text: string) => Promise<Record<string, unknown>[]>;

export const THRESHOLDS = {
  analyze: { base: 50, fraction: 0.1 },
  vacuumDead: { base: 50, fraction: 0.2 },
  vacuumInserts: { base: 1000, fraction: 0.2 },
} as const;

/** One table as the engine's statistics see it. */
export type TableState = {
  table: string;
  /** The planner's row count (pg_class.reltuples; -1 when never vacuumed or analysed). */
  reltuples: number;
  bytes: number;
  liveRows: number;
  deadRows: number;
  changedSinceAnalyze: number;
  insertedSinceVacuum: number;
  lastAnalyze: Date | null;
  lastVacuum: Date | null;
};

export type Action = 'analyze' | 'vacuum' | 'vacuum+analyze';
export type Planned = { table: string; action: Action; reasons: string[] };
/** `ms`: the statement's own time (what requests waited for); `waitedMs`: how long it waited for a quiet moment first. */
export type Done = Planned & { ms: number; waitedMs?: number };
export type MaintenanceReport = { checked: number; done: Done[]; ms: number };

const n = (v: unknown) => Number(v ?? 0);
const date = (v: unknown) => (v === null || v === undefined ? null : new Date(v as string));
const fmt = (x: number) => Math.round(x).toLocaleString('en-US');

/** The tables of the service (schema public) with their counts; the engine's pending counts are flushed first. */
export async function readTableStates(query: Query): Promise<TableState[]> {
  // A backend flushes its counts at most once a second; this makes the next flush (at the end of this statement) happen.
  await query('select pg_stat_force_next_flush()');
  const rows = await query(`
    select s.relname as table, c.reltuples, pg_relation_size(c.oid) as bytes,
           s.n_live_tup, s.n_dead_tup, s.n_mod_since_analyze, s.n_ins_since_vacuum,
           greatest(s.last_analyze, s.last_autoanalyze) as last_analyze,
           greatest(s.last_vacuum, s.last_autovacuum) as last_vacuum
    from pg_stat_user_tables s join pg_class c on c.oid = s.relid
    where s.schemaname = 'public'
    order by s.relname`);
  return rows.map((r) => ({
    table: String(r.table),
    reltuples: n(r.reltuples),
    bytes: n(r.bytes),
    liveRows: n(r.n_live_tup),
    deadRows: n(r.n_dead_tup),
    changedSinceAnalyze: n(r.n_mod_since_analyze),
    insertedSinceVacuum: n(r.n_ins_since_vacuum),
    lastAnalyze: date(r.last_analyze),
    lastVacuum: date(r.last_vacuum),
  }));
}

/** What is due, by the thresholds above (`startup`: also every table with data never analysed). */
export function planMaintenance(states: TableState[], opts: { startup?: boolean } = {}): Planned[] {
  const out: Planned[] = [];
  for (const s of states) {
    const size = Math.max(0, s.reltuples);
    const analyzeAt = THRESHOLDS.analyze.base + THRESHOLDS.analyze.fraction * size;
    const deadAt = THRESHOLDS.vacuumDead.base + THRESHOLDS.vacuumDead.fraction * size;
    const insertsAt = THRESHOLDS.vacuumInserts.base + THRESHOLDS.vacuumInserts.fraction * size;
    const analyze: string[] = [];
    const vacuum: string[] = [];
    if (s.changedSinceAnalyze > analyzeAt)
      analyze.push(`${fmt(s.changedSinceAnalyze)} rows changed since its last analysis (threshold ${fmt(analyzeAt)})`);
    else if (opts.startup && s.lastAnalyze === null && s.bytes > 0) analyze.push('holds data and was never analysed');
    if (s.deadRows > deadAt) vacuum.push(`${fmt(s.deadRows)} dead rows (threshold ${fmt(deadAt)})`);
    if (s.insertedSinceVacuum > insertsAt)
      vacuum.push(`${fmt(s.insertedSinceVacuum)} rows inserted since its last vacuum (threshold ${fmt(insertsAt)})`);
    if (analyze.length === 0 && vacuum.length === 0) continue;
    const action: Action = vacuum.length && analyze.length ? 'vacuum+analyze' : vacuum.length ? 'vacuum' : 'analyze';
    out.push({ table: s.table, action, reasons: [...vacuum, ...analyze] });
  }
  return out;
}

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** The statement of an action (VACUUM cannot run in a transaction: each is one statement of its own). */
export function statementOf(p: Planned): string {
  const t = quoteIdent(p.table);
  return p.action === 'analyze' ? `ANALYZE ${t}` : p.action === 'vacuum' ? `VACUUM ${t}` : `VACUUM (ANALYZE) ${t}`;
}

/**
 * One pass: reads the counts, runs what is due, one statement a table. `run` runs each statement (by default through
 * `query`); the scheduler passes one that waits for a quiet moment and holds the engine while it runs. `dryRun`: plans only.
 */
export async function runMaintenance(
  query: Query,
  opts: {
    startup?: boolean;
    dryRun?: boolean;
    run?: (statement: string) => Promise<{ ms: number; waitedMs: number }>;
  } = {},
): Promise<MaintenanceReport & { planned: Planned[] }> {
  const started = performance.now();
  const states = await readTableStates(query);
  const planned = planMaintenance(states, opts);
  const done: Done[] = [];
  if (!opts.dryRun) {
    for (const p of planned) {
      if (opts.run) done.push({ ...p, ...(await opts.run(statementOf(p))) });
      else {
        const t0 = performance.now();
        await query(statementOf(p));
        done.push({ ...p, ms: Math.round(performance.now() - t0) });
      }
    }
  }
  return { checked: states.length, planned, done, ms: Math.round(performance.now() - started) };
}

/** The log line of a pass that did something. */
export function describeReport(r: MaintenanceReport, when: string): string {
  const verb = { analyze: 'analysed', vacuum: 'vacuumed', 'vacuum+analyze': 'vacuumed and analysed' } as const;
  return `open-verify: database maintenance (${when}): ${r.done.map((d) => `${verb[d.action]} ${d.table} (${d.reasons.join('; ')}; ${d.ms} ms${d.waitedMs ? ` after ${d.waitedMs} ms waiting for a quiet moment` : ''})`).join(', ')}`;
}

/**
 * The embedded engine's maintenance, in the process that owns it (the launcher): a pass now (`startup`), then one
 * every `intervalMs`. Each statement runs in the engine's exclusive slot (between transactions), once the engine has
 * been idle `quietMs`, or after `maxWaitMs` of waiting whatever the load (a table whose statistics are wrong costs
 * more than one short pause). A pass that did something is logged with `log`, one line.
 */
export function scheduleMaintenance(
  engine: Pick<EmbeddedPostgres, 'db' | 'exclusive' | 'idleMs'>,
  opts: {
    intervalMs?: number;
    quietMs?: number;
    maxWaitMs?: number;
    log?: (line: string) => void;
    onPass?: (r: MaintenanceReport) => void;
  } = {},
): { startup: Promise<MaintenanceReport>; stop: () => Promise<void> } {
  const intervalMs = opts.intervalMs ?? 10_000;
  const quietMs = opts.quietMs ?? 50;
  const maxWaitMs = opts.maxWaitMs ?? 10_000;
  const log = opts.log ?? ((line: string) => console.log(line));
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<unknown> = Promise.resolve();

  const query: Query = (text) =>
    engine.exclusive(async () => (await engine.db.query<Record<string, unknown>>(text)).rows);
  const quiet = async () => {
    const until = Date.now() + maxWaitMs;
    while (!stopped && engine.idleMs() < quietMs && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
  };
  const pass = async (when: string, startup: boolean) => {
    const r = await runMaintenance(query, {
      startup,
      run: async (statement) => {
        const t0 = performance.now();
        await quiet();
        const waitedMs = Math.round(performance.now() - t0);
        if (stopped) return { ms: 0, waitedMs };
        // Timed inside the exclusive slot: the statement's own time, which is what requests wait for.
        return engine.exclusive(async () => {
          const t1 = performance.now();
          await engine.db.exec(statement);
          return { ms: Math.round(performance.now() - t1), waitedMs };
        });
      },
    });
    if (r.done.length) log(describeReport(r, when));
    opts.onPass?.(r);
    return r;
  };
  const next = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      current = pass('periodic', false)
        .catch((e: Error) => log(`open-verify: database maintenance failed: ${e.message}`))
        .finally(next);
    }, intervalMs);
    timer.unref();
  };
  const startup = pass('start-up', true);
  current = startup.catch(() => {}).finally(next);
  return {
    startup,
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await current.catch(() => {});
    },
  };
}

/**
 * The plans of the statements that read or write one verification by its id, on a `verifications` table that grew
 * past what its statistics say (issue 44: never analysed since it grew, as on an embedded database before its
 * maintenance existed), in the engine under test (PGlite or PostgreSQL 15). Each statement is prepared and explained
 * with a custom plan (its values known) and with the generic plan (what a prepared statement settles on).
 */
import { and, eq, Placeholder, sql } from 'drizzle-orm';
import type { Db } from '@/lib/db/client';
import { verifications } from '@/lib/db/schema';
import { hot } from '@/lib/db/hot-queries';
import { expect, it } from 'vitest';
import { getVerification } from '@/lib/domain/verifications/get';
import { makeWorkspace } from './factories';
import { ownDatabase } from './own-database';

type PlanNode = { 'Node Type': string; 'Relation Name'?: string; 'Index Name'?: string; Plans?: PlanNode[] };

/** Every scan of `verifications` in a plan: the node type and the index it uses. */
function scansOfVerifications(node: PlanNode, out: string[] = []): string[] {
  if (node['Relation Name'] === 'verifications' && node['Node Type'] !== 'ModifyTable')
    out.push(`${node['Node Type']}${node['Index Name'] ? ` using ${node['Index Name']}` : ''}`);
  for (const child of node.Plans ?? []) scansOfVerifications(child, out);
  return out;
}

/**
 * The statements by id of the request path, with values to explain them with: the GET's read (lib/db/hot-queries.ts),
 * the status change's conditional update (lib/domain/transitions/state-machine.ts).
 */
export function statementsById(db: Db, id: string, workspaceId: string) {
  const get = hot(db, 'verificationWithConsent') as unknown as { queryString: string; params: unknown[] };
  // Its parameters: placeholders by name, and the values drizzle bound itself (the limits).
  const named: Record<string, unknown> = { id, workspaceId, mode: 'test' };
  const getValues = get.params.map((p) => (p instanceof Placeholder ? named[p.name] : p));
  const update = db
    .update(verifications)
    .set({ status: 'started', updatedAt: sql`now()` })
    .where(and(eq(verifications.id, id), eq(verifications.status, 'created')))
    .toSQL();
  return {
    'GET /v1/verifications/{id}': { text: get.queryString, values: getValues },
    'status change': { text: update.sql, values: update.params },
  };
}

/** How the engine reads `verifications` for each statement, with a custom and with the generic plan. */
export async function plansById(db: Db, id: string, workspaceId: string): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  const literal = (v: unknown) => (typeof v === 'number' ? String(v) : `'${String(v).replace(/'/g, "''")}'`);
  let i = 0;
  for (const [name, s] of Object.entries(statementsById(db, id, workspaceId))) {
    const stmt = `ov_plan_${process.pid}_${i++}`;
    // One connection (a transaction) for PREPARE, SET and EXPLAIN EXECUTE; rolled back, so the update changes nothing.
    await db
      .transaction(async (tx) => {
        await tx.execute(sql.raw(`prepare ${stmt} as ${s.text}`));
        for (const mode of ['force_custom_plan', 'force_generic_plan']) {
          await tx.execute(sql.raw(`set local plan_cache_mode = ${mode}`));
          const [row] = await tx.execute<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
            sql.raw(`explain (format json) execute ${stmt}(${s.values.map(literal).join(', ')})`),
          );
          const plan = row['QUERY PLAN'];
          out[`${name}, ${mode === 'force_custom_plan' ? 'custom' : 'generic'} plan`] = scansOfVerifications(
            (typeof plan === 'string' ? JSON.parse(plan) : plan)[0].Plan,
          );
        }
        throw new RolledBack();
      })
      .catch((e) => {
        if (!(e instanceof RolledBack)) throw e;
      });
  }
  return out;
}
class RolledBack extends Error {}

/**
 * Grows one workspace's verifications by `rows` in one statement (the plans depend on how many rows there are and
 * on what the statistics say, not on how each row came to be), without analysing the table: its statistics stay
 * those of before (none, if it was never analysed). Returns the id of one of the new rows.
 */
export async function growWithoutAnalysis(db: Db, workspaceId: string, rows: number): Promise<string> {
  const tag = Math.random().toString(16).slice(2, 10).padEnd(8, '0');
  await db.execute(
    sql.raw(`insert into verifications (id, workspace_id, mode, flow, capture_token_hash, external_id)
      select '${tag}-0000-7000-8000-' || lpad(to_hex(g), 12, '0'), '${workspaceId}', 'test', 'age', md5('${tag}' || g), 'user-' || g
      from generate_series(1, ${rows}) g`),
  );
  return `${tag}-0000-7000-8000-${Math.ceil(rows / 2)
    .toString(16)
    .padStart(12, '0')}`;
}

/**
 * The suite of lib/db/hot-queries.int.test.ts (PGlite) and lib/db/hot-queries.pg15.int.test.ts (PostgreSQL 15): a workspace
 * grows by 10,000 verifications that the statistics do not know of, and every read or write by id still takes the
 * primary key; the read still answers only within its workspace and mode.
 */
export function staleStatisticsSuite(kind: 'embedded' | 'pg15') {
  const d = ownDatabase(kind);
  it('a read by id takes the primary key whatever the statistics say, with a custom and with the generic plan', async () => {
    const db = d.db();
    // PostgreSQL 15's autovacuum would analyse the table while it grows: off for this table, so its statistics stay stale.
    if (kind === 'pg15') await db.execute(sql`alter table verifications set (autovacuum_enabled = false)`);
    const w = await makeWorkspace({}, { db });
    const other = await makeWorkspace({}, { db });
    await growWithoutAnalysis(db, other.workspace.id, 3);
    const id = await growWithoutAnalysis(db, w.workspace.id, 10_000);
    const [stats] = await db.execute<{ reltuples: number; analysed: boolean }>(
      sql`select c.reltuples, (s.last_analyze is not null or s.last_autoanalyze is not null) as analysed from pg_class c join pg_stat_user_tables s on s.relid = c.oid where c.relname = 'verifications'`,
    );
    expect({ reltuples: Number(stats.reltuples), analysed: stats.analysed }).toEqual({
      reltuples: -1,
      analysed: false,
    });

    const pk = ['Index Scan using verifications_pkey'];
    expect(await plansById(db, id, w.workspace.id)).toEqual({
      'GET /v1/verifications/{id}, custom plan': pk,
      'GET /v1/verifications/{id}, generic plan': pk,
      'status change, custom plan': pk,
      'status change, generic plan': pk,
    });

    // The same read, run: the verification within its workspace and mode, nothing outside them.
    expect((await getVerification(db, { id, workspaceId: w.workspace.id, mode: 'test' })).verification.id).toBe(id);
    await expect(getVerification(db, { id, workspaceId: w.workspace.id, mode: 'live' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(getVerification(db, { id, workspaceId: other.workspace.id, mode: 'test' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  }, 180_000);
}

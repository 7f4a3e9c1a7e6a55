/**
 * Health for operators and load balancers. /healthz: the process answers HTTP. /readyz: it can do its work
 * now: the database answers within 2 s, every committed migration is applied (and no newer one: a server
 * older than its database is not ready either), the image-analysis workers have loaded their models, and the
 * server is not draining for shutdown. 200, or 503 NOT_READY. Each check's detail (the database's latency, the
 * migrations applied, the analysis pool's state) only for an operator: with METRICS_TOKEN set and sent as
 * `Authorization: Bearer <METRICS_TOKEN>`, as for /metrics; anyone else gets the status alone.
 */
import { sql } from 'drizzle-orm';
import journal from '@/lib/db/migrations/meta/_journal.json';
import { getDb } from '@/lib/db/client';
import { DomainError } from '../../lib/core/errors';
import { isDraining } from '../../lib/core/lifecycle';
import { analysisPool } from '../../lib/domain/media/pool';
import { errorResponse, json } from '../../lib/api/respond';
import { newId } from '../../lib/core/ids';
import { env } from '../../lib/core/env';
import { bearerMatches } from '../metrics/scrape';

type Check = { ok: boolean } & Record<string, unknown>;

const withTimeout = <T>(p: Promise<T>, ms: number) =>
  Promise.race([
    p,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms).unref()),
  ]);

export async function healthz(): Promise<Response> {
  return json(200, { data: { status: 'ok' } });
}

async function databaseChecks(): Promise<{ database: Check; migrations: Check }> {
  const started = performance.now();
  try {
    const rows = await withTimeout(
      getDb().execute<{ n: number; last: string | null }>(
        sql`select count(*)::int as n, max(created_at)::text as last from drizzle.__drizzle_migrations`,
      ),
      2000,
    );
    const ms = Math.round(performance.now() - started);
    const expected = journal.entries.length;
    const last = String(journal.entries[expected - 1].when);
    const { n, last: applied } = rows[0];
    return { database: { ok: true, ms }, migrations: { ok: n === expected && applied === last, applied: n, expected } };
  } catch (e) {
    const reason = e instanceof Error ? e.message : String(e);
    return { database: { ok: false, error: reason }, migrations: { ok: false, error: 'database unreachable' } };
  }
}

export async function readyz(req: Request): Promise<Response> {
  const token = env().METRICS_TOKEN;
  const detail = !!token && bearerMatches(req.headers.get('authorization'), token);
  const { database, migrations } = await databaseChecks();
  const workers = analysisPool().health();
  const checks = {
    draining: { ok: !isDraining() },
    database,
    migrations,
    analysis_workers: { ok: workers.ready === workers.size && workers.size > 0, ...workers },
  };
  const ready = Object.values(checks).every((c) => c.ok);
  if (ready) return json(200, { data: detail ? { status: 'ready', checks } : { status: 'ready' } });
  const requestId = newId('req');
  return errorResponse(
    new DomainError('NOT_READY', 'The server is not ready for traffic.', detail ? { checks } : undefined, 5),
    requestId,
    { 'x-request-id': requestId },
  );
}

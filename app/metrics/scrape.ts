/**
 * GET /metrics (docs/operating.md "Metrics"): off (404, as if there were no such page) unless METRICS_TOKEN is set;
 * then a scrape must send `Authorization: Bearer <METRICS_TOKEN>` (compared in constant time) and anything else is
 * 401. The answer is this process's registry in the Prometheus text format, with the gauges that read the database
 * (the outbox's backlog and age) read now, in one cheap statement over the due indexes.
 */
import { sql } from 'drizzle-orm';
import type { Db } from '@/lib/db/client';
import { env } from '../../lib/core/env';
import { hexEqual, sha256Hex } from '../../lib/core/crypto/hash';
import { log } from '../../lib/core/log';
import { metrics } from '../../lib/core/observability/metrics';

const PLAIN = { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' };

/** True when `authorization` is `Bearer <token>`, compared in constant time (over digests, so lengths do not leak). */
export function bearerMatches(authorization: string | null, token: string): boolean {
  const m = /^Bearer ([\x21-\x7e]+)$/.exec(authorization ?? '');
  return hexEqual(sha256Hex(m ? m[1] : ''), sha256Hex(token)) && m !== null;
}

type OutboxRow = {
  webhooks_pending: string;
  webhooks_oldest_s: string | null;
  jobs_pending: string;
  jobs_oldest_due_s: string | null;
};

/** The outbox's backlog and age, read at scrape time. */
export async function readOutbox(db: Db) {
  const [r] = await db.execute<OutboxRow>(sql`
    select
      (select count(*) from webhook_events where state = 'pending') as webhooks_pending,
      (select extract(epoch from now() - min(created_at)) from webhook_events where state = 'pending') as webhooks_oldest_s,
      (select count(*) from pipeline_jobs where status in ('pending', 'running')) as jobs_pending,
      (select extract(epoch from now() - min(run_after)) from pipeline_jobs
        where (status = 'pending' and run_after <= now()) or (status = 'running' and lease_until < now())) as jobs_oldest_due_s`);
  const m = metrics();
  m.outboxPending.set({ queue: 'webhooks' }, Number(r.webhooks_pending));
  m.outboxPending.set({ queue: 'pipeline' }, Number(r.jobs_pending));
  m.outboxOldestAge.set({ queue: 'webhooks' }, Math.max(0, Number(r.webhooks_oldest_s ?? 0)));
  m.outboxOldestAge.set({ queue: 'pipeline' }, Math.max(0, Number(r.jobs_oldest_due_s ?? 0)));
}

export async function metricsEndpoint(req: Request, db: () => Db): Promise<Response> {
  const token = env().METRICS_TOKEN;
  if (!token) return new Response('Not Found\n', { status: 404, headers: PLAIN });
  if (!bearerMatches(req.headers.get('authorization'), token)) {
    return new Response('Unauthorized: send Authorization: Bearer <METRICS_TOKEN>\n', {
      status: 401,
      headers: { ...PLAIN, 'www-authenticate': 'Bearer realm="metrics"' },
    });
  }
  try {
    await readOutbox(db());
  } catch (e) {
    // The rest of the scrape is still worth having; the outbox gauges keep their last reading.
    log.warn('metrics: the outbox could not be read', { err: e });
  }
  const { registry } = metrics();
  return new Response(await registry.metrics(), {
    status: 200,
    headers: { 'content-type': registry.contentType, 'cache-control': 'no-store' },
  });
}

/**
 * The in-process runner: when no Inngest is configured, the server itself moves due work forward on a
 * short poll. It calls the same lib/ functions the Inngest functions wrap; every step is idempotent and
 * claims rows with SKIP LOCKED, so several servers on one database never do the same work twice.
 */
import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { pipelineJobs } from '@/db/schema';
import { env } from '../env';
import { log } from '../log';
import { deliverDueWebhooks, type DeliverDeps } from '../webhooks/deliver';
import { sweepTimers } from '../verifications/timers';
import { claimJob, processJob, type PipelineDeps } from '../pipeline';

export type Runner = { stop: () => Promise<void> };

export function startInProcessRunner(deps: { db: Db; intervalMs?: number; webhook?: Partial<DeliverDeps>; pipeline?: Partial<PipelineDeps>; pipelineConcurrency?: number }): Runner {
  const interval = deps.intervalMs ?? 250;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let lastSweep = 0;
  // Decisions run beside the webhook loop, several at once (the image work is in the worker pool).
  const inFlight = new Map<Promise<unknown>, string>();
  const concurrency = deps.pipelineConcurrency ?? 2;
  const pumpPipeline = async () => {
    while (!stopped && inFlight.size < concurrency) {
      const job = await claimJob({ db: deps.db, ...deps.pipeline });
      if (!job) return;
      const p = processJob({ db: deps.db, ...deps.pipeline }, job)
        .catch((e) => log.error('pipeline job crashed', { err: e, job: job.id }))
        .finally(() => inFlight.delete(p));
      inFlight.set(p, job.id);
    }
  };
  // While a decision runs, its lease is renewed (a third of the way through), so the lease can be short: a
  // runner that dies stops renewing, and its job is taken over within one lease, not after a minute.
  const leaseMs = deps.pipeline?.leaseMs ?? env().PIPELINE_LEASE_MS;
  const renew = setInterval(() => {
    const ids = [...inFlight.values()];
    if (ids.length === 0) return;
    deps.db
      .update(pipelineJobs)
      .set({ leaseUntil: new Date(Date.now() + leaseMs) })
      .where(and(inArray(pipelineJobs.id, ids), eq(pipelineJobs.status, 'running')))
      .catch((e) => log.warn('pipeline lease renewal failed', { err: e }));
  }, Math.max(50, Math.floor(leaseMs / 3)));
  renew.unref();

  const tick = async () => {
    try {
      // Inactivity timers are measured in days: a sweep a minute is plenty.
      if (Date.now() - lastSweep >= 60_000) {
        lastSweep = Date.now();
        await sweepTimers(deps.db);
      }
      await pumpPipeline();
      // Drain: keep going while there is due work, then wait for the next tick.
      while (!stopped && (await deliverDueWebhooks({ db: deps.db, ...deps.webhook })) > 0);
    } catch (e) {
      log.error('runner tick failed', { err: e });
    }
    if (!stopped) timer = setTimeout(() => (running = tick()), interval);
  };
  timer = setTimeout(() => (running = tick()), 0);
  return {
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running;
      await Promise.all(inFlight.keys());
      clearInterval(renew);
    },
  };
}

/**
 * The in-process runner: the jobs of lib/domain/jobs run inside the server when no Inngest is configured. Generated
 * from the same definitions as the Inngest functions:
 * - an event sent by this process (after the commit that wrote the work) runs its job at once, and a job
 *   that says when to come back (`again`) runs again then, on a timer;
 * - each job's cron runs at the cron's cadence (the inactivity timers every minute, as under Inngest);
 * - the due-work sweep of every event job also runs every `pollMs` (1 s): this runner cannot receive the
 *   events of other processes (the operator CLI, a second server), so it finds their work in the tables,
 *   as it finds the work of a timer lost in a restart.
 * Every handler claims its rows (SKIP LOCKED, conditional updates), so several servers on one database
 * never do the same work twice.
 */
import type { Db } from '@/lib/db/client';
import { log } from '../../core/log';
import { setLocalTransport, type EventName } from '../events/events';
import { cronIntervalMs, parsePayload, runJob, type JobContext, type JobDefinition } from './job';
import { JOBS } from '.';

export type LocalRunner = { stop: () => Promise<void> };

export type LocalRunnerOptions = Omit<JobContext, 'now'> & {
  now?: () => Date;
  jobs?: readonly JobDefinition[];
  pollMs?: number;
};

export function startLocalRunner(opts: LocalRunnerOptions): LocalRunner {
  const jobs = opts.jobs ?? JOBS;
  const ctx: JobContext = {
    db: opts.db as Db,
    now: opts.now ?? (() => new Date()),
    webhook: opts.webhook,
    pipeline: opts.pipeline,
  };
  let stopped = false;
  const timers = new Set<NodeJS.Timeout>();
  const inFlight = new Set<Promise<void>>();
  const running = new Map<string, number>();
  const waiting = new Map<string, (() => void)[]>();
  /** Sweeps (payload-less runs) of each job currently going: at most one at a time. */
  const sweeping = new Set<string>();

  const later = (fn: () => void, ms: number) => {
    const t = setTimeout(
      () => {
        timers.delete(t);
        if (!stopped) fn();
      },
      Math.max(0, ms),
    );
    t.unref();
    timers.add(t);
  };

  async function slot(job: JobDefinition) {
    const limit = job.concurrency ?? 1;
    while ((running.get(job.id) ?? 0) >= limit)
      await new Promise<void>((r) => waiting.set(job.id, [...(waiting.get(job.id) ?? []), r]));
    running.set(job.id, (running.get(job.id) ?? 0) + 1);
    return () => {
      running.set(job.id, running.get(job.id)! - 1);
      const next = waiting.get(job.id)?.shift();
      next?.();
    };
  }

  function run(job: JobDefinition, payload: unknown) {
    if (stopped) return;
    if (payload === null) {
      if (sweeping.has(job.id)) return;
      sweeping.add(job.id);
    }
    const p = (async () => {
      const release = await slot(job);
      try {
        if (stopped) return;
        const out = await runJob(job, ctx, payload);
        if (payload !== null && out.again) later(() => run(job, payload), out.again.getTime() - ctx.now().getTime());
      } catch (e) {
        log.error('job failed', { job: job.id, err: e });
      } finally {
        release();
        if (payload === null) sweeping.delete(job.id);
      }
    })();
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  }

  setLocalTransport((name: EventName, data) => {
    for (const job of jobs) {
      if (job.event !== name) continue;
      let payload;
      try {
        payload = parsePayload(job, data);
      } catch (e) {
        log.warn('event refused: bad payload', { event: name, err: e });
        continue;
      }
      run(job, payload);
    }
  });

  const every = (ms: number, fn: () => void) => {
    const loop = () => {
      fn();
      later(loop, ms);
    };
    later(loop, 0);
  };
  const pollMs = opts.pollMs ?? 1000;
  for (const job of jobs) {
    if (!job.cron) continue;
    every(job.event ? pollMs : cronIntervalMs(job.cron), () => run(job, null));
  }

  return {
    stop: async () => {
      stopped = true;
      setLocalTransport(null);
      for (const t of timers) clearTimeout(t);
      timers.clear();
      for (const rs of waiting.values()) rs.forEach((r) => r());
      await Promise.all(inFlight);
    },
  };
}

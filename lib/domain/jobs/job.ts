/**
 * What a background job is: one definition (id, trigger, payload schema, handler over lib/) that both the
 * Inngest functions (inngest/functions) and the in-process runner (lib/domain/jobs/local-runner.ts) are generated
 * from, so the two cannot drift.
 *
 * A handler does one step of work and may say when to come back (`again`): a webhook whose next attempt is
 * due in 5 minutes, a decision retried after an error. Inngest sleeps until then (step.sleepUntil, durable);
 * the in-process runner sets a timer (lost on restart, when the due-work sweep finds the row instead).
 */
import type { z } from 'zod';
import type { Db } from '@/lib/db/client';
import type { DeliverDeps } from '../webhooks/deliver';
import type { PipelineDeps } from '../pipeline';
import { outsideTransactions } from '@/lib/db/after-commit';
import { withLogContext } from '../../core/log';
import { metrics, secondsSince } from '../../core/observability/metrics';
import { outsideTrace } from '../../core/observability/tracing';
import { EVENTS, type EventName } from '../events/events';

/** What every handler gets: the database, a clock, and the knobs tests and benchmarks turn. */
export type JobContext = {
  db: Db;
  now: () => Date;
  webhook?: Partial<Omit<DeliverDeps, 'db'>>;
  pipeline?: Partial<Omit<PipelineDeps, 'db'>>;
};

export type JobOutcome = {
  /** A short summary (counts, a status) for logs and tests; JSON. */
  result: unknown;
  /** When the same payload should run again; null or absent: done. */
  again?: Date | null;
};

export type JobDefinition<E extends EventName | undefined = EventName | undefined> = {
  id: string;
  /** What the job does, for the architecture doc and logs. */
  description: string;
  /** Started at once by this event (sent after the commit that wrote the work). */
  event?: E;
  /**
   * A schedule (minute-level cron: `* * * * *` or `*\/N * * * *`). For an event job it is the safety net: the
   * handler then runs without a payload and does whatever is due, whatever the events did.
   */
  cron?: string;
  /** At most this many runs of the job at once, in each runner. */
  concurrency?: number;
  run: (
    ctx: JobContext,
    payload: E extends EventName ? z.infer<(typeof EVENTS)[E]> | null : null,
  ) => Promise<JobOutcome>;
};

export function defineJob<E extends EventName | undefined>(job: JobDefinition<E>): JobDefinition<E> {
  if (!job.event && !job.cron) throw new Error(`job ${job.id}: give it an event, a cron, or both`);
  if (job.cron) cronIntervalMs(job.cron);
  return job;
}

/**
 * One run of a job, as both runners make it (lib/domain/jobs/local-runner.ts, inngest/functions): its log lines carry the
 * job's name, `job_runs_total` and `job_duration_seconds` count it, and it starts outside any transaction and any
 * trace (a run the in-process runner starts from a request's event is not part of that request: its transactions
 * are its own, and its work continues the trace its row carries, lib/core/observability/tracing.ts `inJobSpan`).
 */
export async function runJob(job: JobDefinition, ctx: JobContext, payload: unknown): Promise<JobOutcome> {
  const started = performance.now();
  const trigger = payload === null ? 'schedule' : 'event';
  try {
    const out = await outsideTransactions(() =>
      outsideTrace(() => withLogContext({ job: job.id }, () => job.run(ctx, payload as never))),
    );
    metrics().jobRuns.inc({ job: job.id, trigger, outcome: 'ok' });
    return out;
  } catch (e) {
    metrics().jobRuns.inc({ job: job.id, trigger, outcome: 'error' });
    throw e;
  } finally {
    metrics().jobDuration.observe({ job: job.id }, secondsSince(started));
  }
}

/** The payload of an event job's event, validated (an event with a bad payload is refused, not run). */
export function parsePayload(job: JobDefinition, data: unknown) {
  if (!job.event) return null;
  return EVENTS[job.event].parse(data);
}

/**
 * The interval of a minute-level cron, for the in-process runner: `* * * * *` (every minute) and
 * `*\/N * * * *` (every N minutes) are the forms jobs use; anything else is refused when the job is defined.
 */
export function cronIntervalMs(cron: string): number {
  const m = /^(\*|\*\/([1-9]\d?)) \* \* \* \*$/.exec(cron.trim());
  if (!m) throw new Error(`unsupported cron "${cron}": use "* * * * *" or "*/N * * * *"`);
  return (m[2] ? Number(m[2]) : 1) * 60_000;
}

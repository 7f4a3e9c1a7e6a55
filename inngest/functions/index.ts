/**
 * The Inngest functions, generated from the one list of jobs (lib/domain/jobs): each job's event and cron are its
 * triggers. A run does the job's work in a step and, while the job says when to come back (a webhook's next
 * attempt, a decision's retry), sleeps until then (step.sleepUntil: durable, no cron lag) and runs again.
 * Every body is idempotent (rows claimed with SKIP LOCKED or conditional updates), so Inngest's own retries
 * and the safety-net crons can never decide or deliver twice.
 */
import { getDb } from '@/lib/db/client';
import { JOBS } from '@/lib/domain/jobs';
import { parsePayload, runJob, type JobContext, type JobDefinition } from '@/lib/domain/jobs/job';
import { inngest } from '../../lib/domain/events/inngest-client';

/** A webhook has 4 attempts and a decision 3 tries: more rounds than that means something is wrong. */
const MAX_ROUNDS = 8;

/** `context`: what the handlers get; tests pass their own (a receiver's CA, scaled delays). */
export function inngestFunction(
  job: JobDefinition,
  context: () => JobContext = () => ({ db: getDb(), now: () => new Date() }),
) {
  const triggers = [...(job.event ? [{ event: job.event }] : []), ...(job.cron ? [{ cron: job.cron }] : [])] as [
    { event: string } | { cron: string },
  ];
  return inngest.createFunction(
    {
      id: job.id,
      name: job.description,
      triggers,
      retries: 3,
      ...(job.concurrency ? { concurrency: { limit: job.concurrency } } : {}),
    },
    async ({ event, step }) => {
      const payload = job.event && event.name === job.event ? parsePayload(job, event.data) : null;
      let last: unknown = null;
      for (let round = 0; round < MAX_ROUNDS; round++) {
        const out = await step.run(`run-${round}`, async () => {
          const r = await runJob(job, context(), payload);
          return { result: r.result ?? null, again: r.again ? r.again.toISOString() : null };
        });
        last = out.result;
        if (!payload || !out.again) break;
        await step.sleepUntil(`wait-${round}`, out.again);
      }
      return last;
    },
  );
}

export const functions = JOBS.map((job) => inngestFunction(job));

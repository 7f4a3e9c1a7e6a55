/**
 * The decision of a live submission (lib/domain/pipeline). Started by `verification/submitted`, sent after the
 * submit committed; a failed try is retried after its back-off (`again`). The cron decides whatever is due
 * that no event started: a lost event, a retry whose runner went away, a job whose runner died mid-way
 * (its lease ran out).
 */
import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '@/lib/db/client';
import { pipelineJobs } from '@/lib/db/schema';
import { processSubmission, runDueJobs } from '../../pipeline';
import { defineJob } from '../job';

/** When the verification's open pipeline job can next be taken: its back-off, or the end of a runner's lease. */
async function nextTry(db: Db, verificationId: string): Promise<Date | null> {
  const [job] = await db
    .select({ status: pipelineJobs.status, runAfter: pipelineJobs.runAfter, leaseUntil: pipelineJobs.leaseUntil })
    .from(pipelineJobs)
    .where(and(eq(pipelineJobs.verificationId, verificationId), inArray(pipelineJobs.status, ['pending', 'running'])))
    .limit(1);
  if (!job) return null;
  return job.status === 'pending' ? job.runAfter : job.leaseUntil;
}

export const decideSubmission = defineJob({
  id: 'decide-submission',
  description: 'decide a live submission (liveness, face match, age, documents, duplicates, blocklist)',
  event: 'verification/submitted',
  cron: '* * * * *',
  // Image work runs in the analysis pool; two decisions at once keep it busy without queueing behind it.
  concurrency: 2,
  run: async (ctx, payload) => {
    const deps = { db: ctx.db, clock: ctx.now, ...ctx.pipeline };
    if (!payload) return { result: { decided: await runDueJobs(deps, 50) } };
    const outcome = await processSubmission(deps, payload.verificationId);
    return { result: outcome, again: await nextTry(ctx.db, payload.verificationId) };
  },
});

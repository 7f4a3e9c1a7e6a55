/**
 * Crash recovery at start. Work in progress is held by leases (pipeline_jobs.lease_until,
 * webhook_events.lease_until) so that a runner that dies lets go when its lease runs out. A server that owns
 * its database (the embedded default: the launcher is the only process on it) knows at start that every
 * lease there belongs to a process that is gone, and releases them at once instead of waiting.
 * On a shared database (DATABASE_URL, several servers) leases are short and renewed while the work runs
 * (processJob in lib/domain/pipeline), so a dead runner's work is taken over within one lease.
 */
import { eq, isNotNull } from 'drizzle-orm';
import type { DbOrTx } from '@/lib/db/client';
import { pipelineJobs, webhookEvents } from '@/lib/db/schema';

export async function releaseOrphanedLeases(db: DbOrTx): Promise<{ jobs: number; webhooks: number }> {
  // A running job whose lease has passed is due again (claimJob); its tries count the interrupted run.
  const jobs = await db
    .update(pipelineJobs)
    .set({ leaseUntil: new Date(0) })
    .where(eq(pipelineJobs.status, 'running'))
    .returning({ id: pipelineJobs.id });
  const webhooks = await db
    .update(webhookEvents)
    .set({ leaseUntil: null })
    .where(isNotNull(webhookEvents.leaseUntil))
    .returning({ id: webhookEvents.id });
  return { jobs: jobs.length, webhooks: webhooks.length };
}

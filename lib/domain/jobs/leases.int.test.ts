/**
 * Leases (issue #19): a runner renews the lease of the decision it is working on, so a short lease does not
 * hand a slow job to a second runner; a server that owns its database releases leftover leases at start.
 */
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '@/lib/db/client';
import { pipelineJobs, webhookEvents } from '@/lib/db/schema';
import { makeWorkspace, type TestWorkspace } from '@/test/helpers/factories';
import { consentedVerification, submit, upload } from '@/test/helpers/upload';
import * as I from '@/test/helpers/images';
import { analysisPool } from '@/lib/domain/media/pool';
import { claimJob } from '@/lib/domain/pipeline';
import { startLocalRunner } from './local-runner';
import { releaseOrphanedLeases } from './recover';

describe('pipeline and webhook leases', () => {
  let w: TestWorkspace;
  beforeAll(async () => {
    w = await makeWorkspace({ check_method: 'document_verification' });
    await analysisPool().ready();
  }, 120_000);

  /** A live passport flow: reading the MRZ makes the decision take about a second. */
  async function submitted() {
    const id = await consentedVerification(w, w.liveSecret);
    const portrait = await I.selfie1280();
    expect((await upload(w, w.liveSecret, id, { type: 'selfie' }, portrait)).status).toBe(201);
    const doc = await I.renderDocument('passport', 'front', portrait);
    expect(
      (await upload(w, w.liveSecret, id, { type: 'document', side: 'front', document_type: 'passport' }, doc)).status,
    ).toBe(201);
    expect((await submit(w, w.liveSecret, id)).status).toBe(200);
    return id;
  }

  it('two runners, a 300 ms lease, a decision of about a second: renewed, so taken once (tries = 1), decided once', async () => {
    const id = await submitted();
    const deps = { db: getDb(), pollMs: 30, pipeline: { leaseMs: 300 } };
    const a = startLocalRunner(deps);
    const b = startLocalRunner(deps);
    try {
      const until = Date.now() + 60_000;
      let job;
      do {
        await new Promise((r) => setTimeout(r, 100));
        [job] = await getDb().select().from(pipelineJobs).where(eq(pipelineJobs.verificationId, id));
      } while (job.status !== 'done' && Date.now() < until);
      expect([job.status, job.tries]).toEqual(['done', 1]);
      expect(await getDb().select().from(webhookEvents).where(eq(webhookEvents.verificationId, id))).toHaveLength(1);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  }, 120_000);

  it('at start, a server that owns its database releases the leases of a process that died', async () => {
    const id = await submitted();
    // A runner took the job with a 10-minute lease, then (as if killed) never finished it.
    const job = await claimJob({ db: getDb(), leaseMs: 600_000 }, { verificationId: id });
    expect(job?.status).toBe('running');
    expect(await claimJob({ db: getDb() }, { verificationId: id })).toBeNull();
    const released = await releaseOrphanedLeases(getDb());
    expect(released.jobs).toBeGreaterThanOrEqual(1);
    const again = await claimJob({ db: getDb() }, { verificationId: id });
    expect([again?.id, again?.tries]).toEqual([job!.id, 2]);
  });
});

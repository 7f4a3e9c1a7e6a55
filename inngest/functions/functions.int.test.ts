/**
 * The Inngest functions, run with @inngest/test against the real database: the event-driven decision, the
 * safety net that finds a job whose event was lost, and that neither decides twice.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { InngestTestEngine } from '@inngest/test';
import { eq } from 'drizzle-orm';
import { getDb } from '@/db/client';
import { pipelineJobs, verifications, webhookEvents } from '@/db/schema';
import { makeWorkspace, type TestWorkspace } from '@/lib/testing/factories';
import { consentedVerification, submit, upload } from '@/lib/testing/upload';
import { analysisPool } from '@/lib/media/pool';
import * as F from '@/lib/testing/face-set';
import { pipelineSafetyNet, processSubmittedVerification, inactivityTimers } from '.';

let w: TestWorkspace;
let faces: F.LabelledFace[];
async function submitted(name: string) {
  const id = await consentedVerification(w, w.liveSecret);
  expect((await upload(w, w.liveSecret, id, { type: 'selfie' }, faces.find((f) => f.id === name)!.image)).status).toBe(201);
  expect((await submit(w, w.liveSecret, id)).json.data.status).toBe('submitted');
  return id;
}
const status = async (id: string) => (await getDb().select().from(verifications).where(eq(verifications.id, id)))[0].status;

beforeAll(async () => {
  await analysisPool().ready();
  faces = await F.labelledFaces((bytes, kind) => analysisPool().analyze(bytes, kind));
  // A low age threshold: every adult face is approved, whatever the measured age margins (these tests are about the runner).
  w = await makeWorkspace({ age_threshold: 5 });
}, 180_000);

describe('Inngest functions', () => {
  it('verification/submitted decides the submission in a step; a second run of the event changes nothing', async () => {
    const id = await submitted('astronaut');
    const t = new InngestTestEngine({ function: processSubmittedVerification, events: [{ name: 'verification/submitted', data: { verificationId: id } }] });
    const { result } = await t.execute();
    expect(result).toEqual({ status: 'approved' });
    expect(await status(id)).toBe('approved');
    const again = await new InngestTestEngine({ function: processSubmittedVerification, events: [{ name: 'verification/submitted', data: { verificationId: id } }] }).execute();
    expect(again.result).toBeNull();
    expect(await getDb().select().from(webhookEvents).where(eq(webhookEvents.verificationId, id))).toHaveLength(1);
  });

  it('the safety-net cron processes a job whose event was never sent', async () => {
    const id = await submitted('sample1-2');
    const { result } = await new InngestTestEngine({ function: pipelineSafetyNet }).execute();
    expect(result).toBeGreaterThanOrEqual(1);
    expect(await status(id)).toBe('approved');
    const [job] = await getDb().select().from(pipelineJobs).where(eq(pipelineJobs.verificationId, id));
    expect(job.status).toBe('done');
  });

  it('the timers cron runs the inactivity sweep', async () => {
    const { result } = await new InngestTestEngine({ function: inactivityTimers }).execute();
    expect(result).toEqual({ expired: expect.any(Number), abandoned: expect.any(Number) });
  });
});

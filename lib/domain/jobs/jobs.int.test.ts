/**
 * The one registry of background jobs, run both ways against the real database: the Inngest functions
 * generated from it (under @inngest/test) and the in-process runner generated from it. Each job gives the
 * same result under both; events start work at once; a webhook's retries follow the (scaled) schedule with
 * Inngest's sleeps and with the runner's timers; work whose event was lost is found by the cron.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InngestTestEngine } from '@inngest/test';
import { eq } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import {
  erasureReceipts,
  pipelineJobs,
  usageDays,
  usageRollups,
  verifications,
  webhookAttempts,
  webhookEvents,
} from '@/lib/db/schema';
import { inngestFunction } from '@/inngest/functions';
import { resetEnvCache } from '@/lib/core/env';
import { makeWorkspace, type TestWorkspace } from '@/test/helpers/factories';
import { consentedVerification, submit, upload } from '@/test/helpers/upload';
import { heldVerification } from '@/test/helpers/retention';
import { selfSignedCert, startReceiver } from '@/test/helpers/https-receiver';
import { analysisPool } from '@/lib/domain/media/pool';
import * as F from '@/test/helpers/face-set';
import { createVerification } from '@/lib/domain/verifications/create';
import { transitionWithWebhook } from '@/test/helpers/transitions';
import { INACTIVITY_MS } from '@/lib/domain/verifications/timers';
import { updateWorkspaceSettings } from '@/lib/domain/workspaces';
import { lastSettledDay } from '@/lib/domain/usage/days';
import { JOBS } from '.';
import { sendEvent } from '../events/events';
import { cronIntervalMs, type JobContext } from './job';
import { startLocalRunner, type LocalRunner } from './local-runner';

const DELAYS = [1, 2, 3]; // seconds: the 5 / 15 / 60-minute schedule, scaled
const tls = selfSignedCert();
const ctx = (): JobContext => ({
  db: getDb(),
  now: () => new Date(),
  webhook: { ca: tls.cert, allowPrivate: true, delays: DELAYS, timeoutMs: 3000 },
  pipeline: { retryDelayMs: () => 0 },
});
const fn = (id: string) =>
  inngestFunction(
    JOBS.find((j) => j.id === id)!,
    ctx,
  );
const CRON_EVENT: [{ name: string; data: Record<string, never> }] = [{ name: 'inngest/scheduled.timer', data: {} }];
/** The in-process runner with only events and timers (its due-work poll an hour away), unless a poll is asked for. */
const runner = (pollMs = 3_600_000) => startLocalRunner({ ...ctx(), pollMs });
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until<T>(what: () => Promise<T>, ok: (v: T) => boolean, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await what();
    if (ok(v) || Date.now() > end) return v;
    await wait(100);
  }
}

let w: TestWorkspace;
let rx: Awaited<ReturnType<typeof startReceiver>>;
let faces: F.LabelledFace[];
const covered = new Set<string>();

beforeAll(async () => {
  process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = '1';
  resetEnvCache();
  await analysisPool().ready();
  faces = await F.labelledFaces((bytes, kind) => analysisPool().analyze(bytes, kind));
  // A low age threshold: every adult face is approved, whatever the measured age margins (these tests are about the runners).
  w = await makeWorkspace({ age_threshold: 5 });
  rx = await startReceiver(tls);
  await updateWorkspaceSettings(getDb(), w.workspace.id, { webhook_url: rx.url });
}, 180_000);

afterAll(async () => {
  await rx.close();
  delete process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS;
  resetEnvCache();
});

/** A live submission whose event nobody hears (no runner yet, no Inngest): the job row waits. */
async function submitted(face: string) {
  const id = await consentedVerification(w, w.liveSecret);
  expect((await upload(w, w.liveSecret, id, { type: 'selfie' }, faces.find((f) => f.id === face)!.image)).status).toBe(
    201,
  );
  expect((await submit(w, w.liveSecret, id)).json.data.status).toBe('submitted');
  return id;
}
/** A reviewer's approval: one webhook event, announced to whatever runner listens. */
async function approved() {
  const { row } = await createVerification(getDb(), {
    workspace: w.workspace,
    keyMode: 'test',
    fields: {},
    actor: 'key:test',
  });
  await getDb().update(verifications).set({ status: 'review' }).where(eq(verifications.id, row.id));
  await transitionWithWebhook(getDb(), { verificationId: row.id, trigger: 'admin_approve' });
  const [e] = await getDb().select().from(webhookEvents).where(eq(webhookEvents.verificationId, row.id));
  return { verificationId: row.id, eventId: e.id };
}
const statusOf = async (id: string) =>
  (await getDb().select().from(verifications).where(eq(verifications.id, id)))[0].status;
const eventOf = async (id: string) => (await getDb().select().from(webhookEvents).where(eq(webhookEvents.id, id)))[0];
const arrivals = (verificationId: string) =>
  rx.received.filter((r) => JSON.parse(r.body).verification_id === verificationId);
const attemptsOf = (eventId: string) =>
  getDb().select().from(webhookAttempts).where(eq(webhookAttempts.eventId, eventId)).orderBy(webhookAttempts.attempt);

describe('the job registry', () => {
  it('one definition per job: unique ids, a known event or a cron the in-process runner reads, one Inngest function each', () => {
    expect(new Set(JOBS.map((j) => j.id)).size).toBe(JOBS.length);
    for (const j of JOBS) {
      expect(j.event || j.cron).toBeTruthy();
      if (j.cron) expect(cronIntervalMs(j.cron)).toBeGreaterThanOrEqual(60_000);
      expect(fn(j.id).id()).toContain(j.id);
    }
    expect(() => cronIntervalMs('0 3 * * *')).toThrow(/unsupported cron/);
  });

  it('decide-submission: its event decides alike under Inngest and the in-process runner; a second run changes nothing', async () => {
    covered.add('decide-submission');
    // Two different people (one picture twice would be refused as the same capture), both adults.
    const [a, b] = [await submitted('astronaut'), await submitted('grace_hopper')];
    const viaInngest = await new InngestTestEngine({
      function: fn('decide-submission'),
      events: [{ name: 'verification/submitted', data: { verificationId: a } }],
    }).execute();
    expect(viaInngest.result).toEqual({ status: 'approved' });
    const r = runner();
    try {
      await sendEvent('verification/submitted', { verificationId: b });
      expect(
        await until(
          () => statusOf(b),
          (s) => s !== 'submitted',
        ),
      ).toBe('approved');
    } finally {
      await r.stop();
    }
    const again = await new InngestTestEngine({
      function: fn('decide-submission'),
      events: [{ name: 'verification/submitted', data: { verificationId: a } }],
    }).execute();
    expect(again.result).toBeNull();
    for (const id of [a, b])
      expect(await getDb().select().from(webhookEvents).where(eq(webhookEvents.verificationId, id))).toHaveLength(1);
  });

  it('decide-submission: a job whose event was lost is decided by the cron, under both', async () => {
    const a = await submitted('sample1-2');
    const { result } = await new InngestTestEngine({ function: fn('decide-submission'), events: CRON_EVENT }).execute();
    expect(result).toMatchObject({ decided: expect.any(Number) });
    expect(await statusOf(a)).toBe('approved');
    const c = await submitted(faces.find((f) => f.id.startsWith('sample') && f.id !== 'sample1-2')!.id);
    const r = runner(200);
    try {
      expect(
        await until(
          () => statusOf(c),
          (s) => s !== 'submitted',
        ),
      ).not.toBe('submitted');
    } finally {
      await r.stop();
    }
    const [job] = await getDb().select().from(pipelineJobs).where(eq(pipelineJobs.verificationId, c));
    expect(job.status).toBe('done');
  });

  it('deliver-webhook under Inngest: attempts 1, 2, 3 on the scaled schedule (its sleeps), every attempt recorded', async () => {
    covered.add('deliver-webhook');
    rx.script([{ status: 503 }, { status: 503 }, { status: 200 }]);
    const { verificationId, eventId } = await approved();
    // @inngest/test runs a sleep through a handler of the test's: it waits until the event's next attempt is due,
    // which is what the function asked to sleep until (checked below against the calls it made).
    const sleepUntilDue = async () => {
      const e = await eventOf(eventId);
      await wait(e.nextAttemptAt.getTime() - Date.now());
    };
    const t = new InngestTestEngine({
      function: fn('deliver-webhook'),
      events: [{ name: 'webhook/enqueued', data: { eventId } }],
      steps: [0, 1, 2].map((i) => ({ id: `wait-${i}`, handler: sleepUntilDue })),
    });
    const { result, ctx: run } = await t.execute();
    expect(result).toEqual({ state: 'delivered', attempts: 3 });
    const got = arrivals(verificationId);
    expect(got).toHaveLength(3);
    for (let i = 1; i < 3; i++) {
      const gap = got[i].at - got[i - 1].at;
      expect(gap).toBeGreaterThanOrEqual(DELAYS[i - 1] * 1000 - 50);
      expect(gap).toBeLessThan(DELAYS[i - 1] * 1000 + 5000);
    }
    const attempts = await attemptsOf(eventId);
    expect(attempts.map((a) => a.outcome)).toEqual(['retry', 'retry', 'delivered']);
    // It slept until each retry's due time, no later (no cron lag): the times Postgres scheduled.
    const sleeps = (run.step.sleepUntil as unknown as { mock: { calls: [string, string][] } }).mock.calls;
    expect(sleeps.map(([id]) => id)).toEqual(['wait-0', 'wait-1']);
    for (const [i, [, at]] of sleeps.entries()) {
      const due = attempts[i].startedAt.getTime() + DELAYS[i] * 1000;
      expect(Math.abs(new Date(at).getTime() - due)).toBeLessThan(1000);
    }
  });

  it('deliver-webhook in the in-process runner: the commit starts attempt 1 at once, a timer attempt 2 when due', async () => {
    rx.script([{ status: 503 }, { status: 200 }]);
    const r = runner();
    try {
      const { verificationId, eventId } = await approved();
      const e = await until(
        () => eventOf(eventId),
        (x) => x.state !== 'pending',
      );
      expect(e.state).toBe('delivered');
      const got = arrivals(verificationId);
      expect(got).toHaveLength(2);
      expect(got[1].at - got[0].at).toBeGreaterThanOrEqual(DELAYS[0] * 1000 - 50);
    } finally {
      await r.stop();
    }
  });

  it('deliver-webhook: an event lost before sending is delivered by the cron, under both', async () => {
    rx.script([{ status: 200 }]);
    const lostA = await approved(); // no runner listens and Inngest is off: the announcement goes nowhere
    await new InngestTestEngine({ function: fn('deliver-webhook'), events: CRON_EVENT }).execute();
    expect((await eventOf(lostA.eventId)).state).toBe('delivered');
    const lostB = await approved();
    const r = runner(200);
    try {
      expect(
        (
          await until(
            () => eventOf(lostB.eventId),
            (x) => x.state !== 'pending',
          )
        ).state,
      ).toBe('delivered');
    } finally {
      await r.stop();
    }
    for (const lost of [lostA, lostB]) expect(arrivals(lost.verificationId)).toHaveLength(1);
  });

  it('sweep-inactivity-timers: the same sweep under both, every minute', async () => {
    covered.add('sweep-inactivity-timers');
    const job = JOBS.find((j) => j.id === 'sweep-inactivity-timers')!;
    expect(cronIntervalMs(job.cron!)).toBe(60_000);
    const stale = async () => {
      const { row } = await createVerification(getDb(), {
        workspace: w.workspace,
        keyMode: 'test',
        fields: {},
        actor: 'key:test',
      });
      await getDb()
        .update(verifications)
        .set({ statusChangedAt: new Date(Date.now() - INACTIVITY_MS - 60_000) })
        .where(eq(verifications.id, row.id));
      return row.id;
    };
    const a = await stale();
    const viaInngest = await new InngestTestEngine({
      function: fn('sweep-inactivity-timers'),
      events: CRON_EVENT,
    }).execute();
    expect(viaInngest.result).toMatchObject({ expired: expect.any(Number), abandoned: expect.any(Number) });
    expect(await statusOf(a)).toBe('expired');
    const b = await stale();
    let r: LocalRunner | undefined;
    try {
      r = runner(); // the cron runs when the runner starts, then every minute
      expect(
        await until(
          () => statusOf(b),
          (s) => s === 'expired',
        ),
      ).toBe('expired');
    } finally {
      await r?.stop();
    }
  });

  it('retention-sweep: the same erasure under both, every minute; a second run erases nothing more', async () => {
    covered.add('retention-sweep');
    const job = JOBS.find((j) => j.id === 'retention-sweep')!;
    expect(cronIntervalMs(job.cron!)).toBe(60_000);
    const due = () => heldVerification(getDb(), w, { decidedDaysAgo: 31 });
    const erasedAt = async (id: string) =>
      (await getDb().select().from(verifications).where(eq(verifications.id, id)))[0].dataErasedAt;
    const receipts = async (id: string) =>
      (await getDb().select().from(erasureReceipts).where(eq(erasureReceipts.verificationId, id))).length;
    const a = await due();
    const viaInngest = await new InngestTestEngine({ function: fn('retention-sweep'), events: CRON_EVENT }).execute();
    expect(viaInngest.result).toMatchObject({ erased: expect.any(Number), more: false });
    expect(await erasedAt(a.id)).toBeInstanceOf(Date);
    const b = await due();
    let r: LocalRunner | undefined;
    try {
      r = runner(); // the cron runs when the runner starts, then every minute
      expect(
        await until(
          () => erasedAt(b.id),
          (d) => d !== null,
        ),
      ).toBeInstanceOf(Date);
    } finally {
      await r?.stop();
    }
    await new InngestTestEngine({ function: fn('retention-sweep'), events: CRON_EVENT }).execute();
    expect([await receipts(a.id), await receipts(b.id)]).toEqual([1, 1]);
  });

  it('usage-rollup: the same daily totals under both, every ten minutes; a second run has nothing to do', async () => {
    covered.add('usage-rollup');
    const job = JOBS.find((j) => j.id === 'usage-rollup')!;
    expect(cronIntervalMs(job.cron!)).toBe(600_000);
    const through = async (ws: string) =>
      (await getDb().select().from(usageRollups).where(eq(usageRollups.workspaceId, ws)))[0]?.rolledThrough ?? null;
    const dayRows = async (ws: string) =>
      (await getDb().select().from(usageDays).where(eq(usageDays.workspaceId, ws))).map((d) => [
        d.day,
        d.mode,
        d.created,
      ]);
    /** A workspace with one live verification made three days ago. */
    const withHistory = async () => {
      const x = await makeWorkspace();
      const { row } = await createVerification(getDb(), {
        workspace: x.workspace,
        keyMode: 'live',
        fields: {},
        actor: 'key:test',
      });
      const at = new Date(Date.now() - 3 * 86_400_000);
      await getDb().update(verifications).set({ createdAt: at }).where(eq(verifications.id, row.id));
      return { ws: x.workspace.id, day: at.toISOString().slice(0, 10) };
    };
    // One clock for every run, so that 01:00 UTC passing during the test changes nothing.
    const now = new Date();
    const fixed = (): JobContext => ({ ...ctx(), now: () => now });
    const rollup = () => new InngestTestEngine({ function: inngestFunction(job, fixed), events: CRON_EVENT }).execute();
    const a = await withHistory();
    const viaInngest = await rollup();
    expect(viaInngest.result).toMatchObject({ workspaces: expect.any(Number), more: false });
    expect(await through(a.ws)).toBe(lastSettledDay(now));
    expect(await dayRows(a.ws)).toEqual([[a.day, 'live', 1]]);
    const b = await withHistory();
    let r: LocalRunner | undefined;
    try {
      r = startLocalRunner({ ...fixed(), pollMs: 3_600_000 }); // the cron runs when the runner starts, then every ten minutes
      expect(
        await until(
          () => through(b.ws),
          (d) => d !== null,
        ),
      ).toBe(lastSettledDay(now));
    } finally {
      await r?.stop();
    }
    expect(await dayRows(b.ws)).toEqual([[b.day, 'live', 1]]);
    const again = await rollup();
    expect(again.result).toMatchObject({ workspaces: 0, days: 0 });
  });

  it('every job of the registry is exercised above, under both runners', () => {
    expect([...covered].sort()).toEqual(JOBS.map((j) => j.id).sort());
  });
});

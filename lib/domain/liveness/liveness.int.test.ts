/**
 * Active liveness through the capture endpoints and the pipeline, and the attacks it and the passive checks must
 * catch, all made at test time from the packaged photos: head turns (test/helpers/head-turn.ts), the same still
 * photo as every frame, a face swapped between the challenge and the selfie, frames replayed from an earlier
 * verification, a screen photographed with moiré only, a screen with stripes in its bezel, a halftone print.
 */
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '@/lib/db/client';
import { auditLog, livenessChallenges } from '@/lib/db/schema';
import { GET as stateRoute } from '@/app/api/capture/[token]/route';
import { POST as consentRoute } from '@/app/api/capture/[token]/consent/route';
import { POST as mediaRoute } from '@/app/api/capture/[token]/media/route';
import { POST as submitRoute } from '@/app/api/capture/[token]/submit/route';
import { POST as challengeRoute } from '@/app/api/capture/[token]/liveness/route';
import { POST as framesRoute } from '@/app/api/capture/[token]/liveness/[challenge]/route';
import { POST as createRoute } from '@/app/v1/verifications/route';
import { GET as getOne } from '@/app/v1/verifications/[id]/route';
import { call } from '@/test/helpers/http';
import { ensureConsent, makeWorkspace, type TestWorkspace } from '@/test/helpers/factories';
import { upload as apiUpload, submit as apiSubmit } from '@/test/helpers/upload';
import * as I from '@/test/helpers/images';
import * as F from '@/test/helpers/face-set';
import { turnedHead, type Box } from '@/test/helpers/head-turn';
import { analysisPool } from '../media/pool';
import { runDueJobs } from '../pipeline';
import { MOIRE_SCORE_THRESHOLD, REPLAY_SCORE_THRESHOLD } from '../thresholds/thresholds';
import { completeChallenge, CHALLENGE_TTL_MS } from './challenge';
import type { ChallengeStep } from '../../db/schema/liveness-challenge';

const db = () => getDb();
const run = () => runDueJobs({ db: db(), retryDelayMs: () => 0 }, 50);

/** A live verification opened on the hosted page, consent accepted. */
async function link(w: TestWorkspace) {
  const active = await ensureConsent();
  const c = await call(createRoute, {
    method: 'POST',
    path: '/v1/verifications',
    body: {},
    apiKey: w.apiKey,
    secret: w.liveSecret,
  });
  const token = new URL(c.json.data.url).pathname.split('/').pop()!;
  const r = await call(consentRoute, {
    method: 'POST',
    path: `/api/capture/${token}/consent`,
    body: { consent_version_id: active.id, text_sha256: active.textSha256 },
    params: { token },
  });
  expect(r.status).toBe(200);
  return { id: c.json.data.id as string, token };
}
const state = async (token: string) =>
  (await call(stateRoute, { path: `/api/capture/${token}`, params: { token } })).json.data;
const challenge = async (token: string, body?: object) =>
  call(challengeRoute, { method: 'POST', path: `/api/capture/${token}/liveness`, params: { token }, body });
async function sendFrames(token: string, id: string, nonce: string, frames: Buffer[]) {
  const form = new FormData();
  form.append('nonce', nonce);
  frames.forEach((f, i) =>
    form.append(`frame_${i}`, new Blob([f as BlobPart], { type: 'image/jpeg' }), `frame_${i}.jpg`),
  );
  const res = await framesRoute(
    new Request(`http://verify.test/api/capture/${token}/liveness/${id}`, { method: 'POST', body: form }),
    { params: Promise.resolve({ token, challenge: id }) },
  );
  return { status: res.status, json: await res.json() };
}
async function captureUpload(token: string, file: Buffer) {
  const form = new FormData();
  form.append('type', 'selfie');
  form.append('file', new Blob([file as BlobPart], { type: 'image/jpeg' }), 'selfie.jpg');
  const res = await mediaRoute(
    new Request(`http://verify.test/api/capture/${token}/media`, { method: 'POST', body: form }),
    { params: Promise.resolve({ token }) },
  );
  return { status: res.status, json: await res.json() };
}
async function submitAndDecide(w: TestWorkspace, v: { id: string; token: string }) {
  const s = await call(submitRoute, {
    method: 'POST',
    path: `/api/capture/${v.token}/submit`,
    params: { token: v.token },
  });
  expect(s.json.data?.status, JSON.stringify(s.json)).toBe('submitted');
  await run();
  return (
    await call(getOne, {
      method: 'GET',
      path: `/v1/verifications/${v.id}`,
      apiKey: w.apiKey,
      secret: w.liveSecret,
      params: { id: v.id },
    })
  ).json.data;
}
const decidedChecks = async (id: string) => {
  const rows = await db().select().from(auditLog).where(eq(auditLog.verificationId, id));
  return (rows.find((r) => r.action === 'verification.decided')?.data as { checks: Record<string, unknown> }).checks;
};

/** One frame per pose, of one face: a turn of ±0.25 of the face width reads as left/right (about ±0.16 eye distances). */
let poses: Record<ChallengeStep, Buffer>;
let gracePoses: Record<ChallengeStep, Buffer>;
const framesFor = (steps: ChallengeStep[], set = poses) => steps.map((s) => set[s]);

beforeAll(async () => {
  await analysisPool().ready();
  const astronaut = I.astronaut();
  poses = {
    left: await turnedHead(astronaut, 0.25),
    right: await turnedHead(astronaut, -0.25),
    straight: await turnedHead(astronaut, 0),
  };
  const grace = await I.graceHopper();
  const g = (await analysisPool().analyze(grace, 'selfie')).faces[0].box;
  const box: Box = { x: g[0], y: g[1], w: g[2], h: g[3] };
  gracePoses = {
    left: await turnedHead(grace, 0.4, box),
    right: await turnedHead(grace, -0.4, box),
    straight: await turnedHead(grace, 0, box),
  };
}, 120_000);

describe('active liveness (hosted page)', () => {
  it('a passed challenge of the same person before the selfie: the pipeline records it and decides as usual', async () => {
    const w = await makeWorkspace({ require_active_liveness: true, age_threshold: 5 });
    const v = await link(w);
    expect((await state(v.token)).active_liveness).toEqual({ required: true, done: false });
    const c = await challenge(v.token);
    expect(c.status).toBe(201);
    const { id, nonce, steps } = c.json.data;
    expect(steps).toHaveLength(3);
    expect(steps[2]).toBe('straight');
    expect([...steps].sort()).toEqual(['left', 'right', 'straight']);
    const r = await sendFrames(v.token, id, nonce, framesFor(steps));
    expect(r.json.data, JSON.stringify(r.json)).toMatchObject({ passed: true, failure: null });
    expect((await state(v.token)).active_liveness).toEqual({ required: true, done: true });
    // The nonce is single use.
    const again = await sendFrames(v.token, id, nonce, framesFor(steps));
    expect([again.status, again.json.error.code]).toEqual([409, 'INVALID_STATUS']);
    // A nonce that is not this challenge's.
    expect((await sendFrames(v.token, id, 'x'.repeat(43), framesFor(steps))).json.error.code).toBe('NOT_FOUND');

    expect((await captureUpload(v.token, I.astronaut())).status).toBe(201);
    const done = await submitAndDecide(w, v);
    expect([done.status, done.reason]).toEqual(['approved', null]);
    expect(await decidedChecks(v.id)).toMatchObject({ active_liveness: { required: true, passed: true, steps } });
  }, 120_000);

  it('required but never done: liveness_failed; an upload through the API keeps the passive checks only', async () => {
    const w = await makeWorkspace({ require_active_liveness: true, age_threshold: 5 });
    const v = await link(w);
    expect((await captureUpload(v.token, I.astronaut())).status).toBe(201);
    expect(await submitAndDecide(w, v)).toMatchObject({ status: 'resubmission_requested', reason: 'liveness_failed' });

    const c = await call(createRoute, {
      method: 'POST',
      path: '/v1/verifications',
      body: {},
      apiKey: w.apiKey,
      secret: w.liveSecret,
    });
    const active = await ensureConsent();
    const id = c.json.data.id;
    await call((await import('@/app/v1/verifications/[id]/consent/route')).POST, {
      method: 'POST',
      path: `/v1/verifications/${id}/consent`,
      body: { consent_version_id: active.id, text_sha256: active.textSha256 },
      apiKey: w.apiKey,
      secret: w.liveSecret,
      params: { id },
    });
    expect(
      (await apiUpload(w, w.liveSecret, id, { type: 'selfie' }, await I.blurred(I.graceHopper(), 0.6))).status,
    ).toBe(201);
    expect((await apiSubmit(w, w.liveSecret, id)).json.data.status).toBe('submitted');
    await run();
    const api = (
      await call(getOne, {
        method: 'GET',
        path: `/v1/verifications/${id}`,
        apiKey: w.apiKey,
        secret: w.liveSecret,
        params: { id },
      })
    ).json.data;
    expect([api.status, api.reason]).toEqual(['approved', null]);
  }, 120_000);

  it('the accessible alternative: no head turn, and a person reviews what would have been approved', async () => {
    const w = await makeWorkspace({ require_active_liveness: true, age_threshold: 5 });
    const v = await link(w);
    expect((await challenge(v.token, { skip: true })).json.data).toMatchObject({ skipped: true });
    expect((await state(v.token)).active_liveness.done).toBe(true);
    expect((await captureUpload(v.token, I.astronaut())).status).toBe(201);
    expect(await submitAndDecide(w, v)).toMatchObject({ status: 'review', reason: null });
  }, 120_000);
});

describe('attacks the challenge catches', () => {
  const attempt = async (frames: (steps: ChallengeStep[]) => Buffer[], w?: TestWorkspace) => {
    const ws = w ?? (await makeWorkspace({ require_active_liveness: true }));
    const v = await link(ws);
    const c = (await challenge(v.token)).json.data;
    return (await sendFrames(v.token, c.id, c.nonce, frames(c.steps))).json.data;
  };

  it('the same still photo as every frame', async () => {
    expect(await attempt((steps) => steps.map(() => I.astronaut()))).toMatchObject({
      passed: false,
      failure: 'still_image',
    });
  }, 60_000);

  it('the poses in another order than asked', async () => {
    expect(await attempt((steps) => framesFor([steps[1], steps[0], steps[2]]))).toMatchObject({
      passed: false,
      failure: 'pose_order',
    });
  }, 60_000);

  it('a different person in one of the frames', async () => {
    expect(await attempt((steps) => [poses[steps[0]], gracePoses[steps[1]], poses[steps[2]]])).toMatchObject({
      passed: false,
      failure: 'different_person',
    });
  }, 60_000);

  it("frames replayed from an earlier verification's challenge, as sent and re-encoded", async () => {
    const w = await makeWorkspace({ require_active_liveness: true });
    expect(await attempt(framesFor, w)).toMatchObject({ passed: true });
    expect(await attempt(framesFor, w)).toMatchObject({ passed: false, failure: 'replayed_frames' });
    const sharp = (await import('sharp')).default;
    const reencoded = async (b: Buffer) => sharp(b).jpeg({ quality: 80 }).toBuffer();
    const re = {
      left: await reencoded(poses.left),
      right: await reencoded(poses.right),
      straight: await reencoded(poses.straight),
    };
    expect(await attempt((steps) => framesFor(steps, re), w)).toMatchObject({
      passed: false,
      failure: 'replayed_frames',
    });
  }, 120_000);

  it('frames that arrive after the nonce expired', async () => {
    const w = await makeWorkspace({ require_active_liveness: true });
    const v = await link(w);
    const c = (await challenge(v.token)).json.data;
    const [row] = await db().select().from(livenessChallenges).where(eq(livenessChallenges.id, c.id));
    const vrow = { id: v.id, workspaceId: w.workspace.id } as never;
    const late = new Date(row.issuedAt.getTime() + CHALLENGE_TTL_MS + 1000);
    const o = await completeChallenge(
      db(),
      vrow,
      { challengeId: c.id, nonce: c.nonce, frames: framesFor(c.steps) },
      (b, k) => analysisPool().analyze(b, k),
      late,
    );
    expect(o).toMatchObject({ passed: false, failure: 'expired' });
  }, 60_000);

  it('a face swapped between the challenge and the selfie: liveness_failed', async () => {
    const w = await makeWorkspace({ require_active_liveness: true, age_threshold: 5 });
    const v = await link(w);
    const c = (await challenge(v.token)).json.data;
    expect((await sendFrames(v.token, c.id, c.nonce, framesFor(c.steps))).json.data.passed).toBe(true);
    expect((await captureUpload(v.token, I.graceHopper())).status).toBe(201);
    expect(await submitAndDecide(w, v)).toMatchObject({ status: 'resubmission_requested', reason: 'liveness_failed' });
    expect((await decidedChecks(v.id)).signal).toBe('the selfie is not the person of the head-turn challenge');
  }, 120_000);
});

describe('presentation attacks the passive checks catch (selfie)', () => {
  let w: TestWorkspace;
  beforeAll(async () => {
    w = await makeWorkspace({ age_threshold: 5 });
  });
  const decideSelfie = async (selfie: Buffer) => {
    const v = await link(w);
    const up = await captureUpload(v.token, selfie);
    expect(up.status, JSON.stringify(up.json)).toBe(201);
    return { v: await submitAndDecide(w, v), checks: await decidedChecks(v.id) };
  };

  it('a screen photographed with moiré only (no visible stripes): caught by the moiré score, missed by the pattern score', async () => {
    const { v, checks } = await decideSelfie(await F.moireReplay(I.astronaut(), { density: 1.1, angle: 1.5 }));
    expect([v.status, v.reason]).toEqual(['declined', 'fraud_detected']);
    expect(checks.replay_score as number).toBeLessThan(REPLAY_SCORE_THRESHOLD);
    expect(checks.moire_score as number).toBeGreaterThanOrEqual(MOIRE_SCORE_THRESHOLD);
  }, 60_000);

  it('a phone screen with visible stripes inside its bezel, and a halftone print', async () => {
    const screen = await decideSelfie(await F.screenWithBezel(I.astronaut()));
    expect([screen.v.status, screen.v.reason]).toEqual(['declined', 'fraud_detected']);
    const print = await decideSelfie(await F.printedHalftone(await I.graceHopper()));
    expect([print.v.status, print.v.reason]).toEqual(['declined', 'fraud_detected']);
  }, 60_000);
});

/**
 * The step-up to a document (docs/api.md "Step-up to a document") through the signed API, on the real database,
 * with real images and live decisions: a selfie whose estimated range straddles the threshold, in a workspace
 * whose `estimation_fallback` is `document`, asks for an ID document in the same verification; a passport rendered
 * at test time (OCR-B MRZ) then decides it by its date of birth and the face match. Every webhook reaches a real
 * HTTPS receiver and is checked as an integrator checks it (the SDK's verifyWebhook), in order.
 *
 * The age model and its ranges are not this file's: every threshold is taken from the estimate the test reads
 * back for the same selfie (the astronaut). At her estimated age the range straddles; at the range's lower end
 * all of it is at or above; one over its upper end, all of it below.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { asc, eq } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { media, verifications, webhookEvents } from '@/lib/db/schema';
import { GET as getOne } from '@/app/v1/verifications/[id]/route';
import { resetEnvCache } from '@/lib/core/env';
import { call } from '@/test/helpers/http';
import { makeWorkspace, type TestWorkspace } from '@/test/helpers/factories';
import { consentedVerification, submit, upload } from '@/test/helpers/upload';
import { selfSignedCert, startReceiver } from '@/test/helpers/https-receiver';
import * as I from '@/test/helpers/images';
import * as F from '@/test/helpers/face-set';
import { flatCard, phonePhoto } from '@/test/helpers/phone-photo';
import { openRead } from '@/lib/domain/documents/read';
import type { SettingsPatch } from '@/lib/domain/workspaces';
import { analysisPool } from '@/lib/domain/media/pool';
import { stopOcr } from '@/lib/domain/documents/ocr';
import { deliverWebhookEvent } from '@/lib/domain/webhooks/deliver';
import { decideReview } from '@/lib/domain/verifications/review';
import { captureState } from '@/lib/domain/capture/state';
import { verifyWebhook } from '@/sdk/src/webhooks';
import { runDueJobs } from '.';

const db = () => getDb();
const tls = selfSignedCert();
let rx: Awaited<ReturnType<typeof startReceiver>>;

/** The astronaut's selfie, her passport portrait (another photo of her), and another person's face. */
let selfie: Buffer;
let herPortrait: Buffer;
let otherPerson: Buffer;
/** What the age estimate says of her selfie (read back below), whatever the model. */
let probe: { estimated_age: number; age_range: { min: number; max: number } };

type Doc = [kind: 'passport' | 'id_card', bytes: Buffer];
/** Born on 1 January of the year that makes them `age` on the day of the decision. */
const bornAged = (age: number) => `${new Date().getUTCFullYear() - age}-01-01`;
const passport = (portrait: Buffer, age: number, more: Partial<I.Identity> & { mrz?: 'smudged' } = {}) =>
  I.renderDocument('passport', 'front', portrait, { birthDate: bornAged(age), ...more });

async function get(w: TestWorkspace, id: string) {
  return (
    await call(getOne, {
      method: 'GET',
      path: `/v1/verifications/${id}`,
      apiKey: w.apiKey,
      secret: w.liveSecret,
      params: { id },
    })
  ).json.data;
}
async function submitAndDecide(w: TestWorkspace, id: string) {
  const r = await submit(w, w.liveSecret, id);
  expect(r.status, JSON.stringify(r.json)).toBe(200);
  expect(r.json.data.status).toBe('submitted');
  await runDueJobs({ db: db(), retryDelayMs: () => 0 }, 50);
  return get(w, id);
}
async function uploadOk(w: TestWorkspace, id: string, fields: Record<string, string>, bytes: Buffer) {
  const r = await upload(w, w.liveSecret, id, fields, bytes);
  expect(r.status, JSON.stringify(r.json)).toBe(201);
}
const uploadDoc = (w: TestWorkspace, id: string, [kind, bytes]: Doc) =>
  uploadOk(w, id, { type: 'document', side: 'front', document_type: kind }, bytes);

/** A live verification of the astronaut's selfie in `w`, submitted and decided (documents uploaded first, if any). */
async function selfieDecided(w: TestWorkspace, docs: Doc[] = []) {
  const id = await consentedVerification(w, w.liveSecret);
  await uploadOk(w, id, { type: 'selfie' }, selfie);
  for (const d of docs) await uploadDoc(w, id, d);
  return submitAndDecide(w, id);
}

/** A workspace that steps up to a document, its webhooks going to the receiver. */
const stepUpWorkspace = (settings: SettingsPatch) =>
  makeWorkspace({ estimation_fallback: 'document', webhook_url: rx.url, ...settings });

/** Her selfie at her estimated age in a workspace that steps up: asked for a document, which is then sent (a passport) and decided. */
async function steppedUpThen(passportFront: Buffer) {
  const w = await stepUpWorkspace({ age_threshold: probe.estimated_age });
  const first = await selfieDecided(w);
  expect([first.status, first.reason]).toEqual(['resubmission_requested', 'document_required']);
  await uploadDoc(w, first.id, ['passport', passportFront]);
  return { w, v: await submitAndDecide(w, first.id) };
}

/**
 * Delivers this verification's webhook events (and only its own), then returns what the receiver got for it, in
 * the order received, each checked with the workspace's active secret (the live key) as an integrator would.
 */
async function webhooks(w: TestWorkspace, id: string) {
  const events = await db()
    .select({ id: webhookEvents.id })
    .from(webhookEvents)
    .where(eq(webhookEvents.verificationId, id))
    .orderBy(asc(webhookEvents.createdAt));
  for (const e of events)
    expect(
      (await deliverWebhookEvent({ db: db(), ca: tls.cert, allowPrivate: true, timeoutMs: 5000 }, e.id))?.state,
    ).not.toBe('pending');
  const mine = rx.received.filter((r) => JSON.parse(r.body).verification_id === id);
  const out = [];
  for (const r of mine) {
    const event = await verifyWebhook({ body: r.body, headers: r.headers, secret: w.liveSecret });
    out.push(`${event.status}/${event.reason}`);
  }
  // A wrong key is refused: the check above is a real one.
  if (mine[0])
    await expect(verifyWebhook({ body: mine[0].body, headers: mine[0].headers, secret: w.testSecret })).rejects.toThrow(
      /signature/,
    );
  return out;
}

beforeAll(async () => {
  // The receiver is on loopback: allowed only with the operator setting meant for tests and demos.
  process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = '1';
  resetEnvCache();
  rx = await startReceiver(tls);
  await analysisPool().ready();
  selfie = await sharp(I.astronaut()).resize(640, 640).jpeg({ quality: 92 }).toBuffer();
  herPortrait = (await F.sameFaceVariants(selfie)).find((v) => v.name === 'darker')!.image;
  otherPerson = await sharp(I.graceHopper())
    .resize(640, 640, { fit: 'cover', position: 'top' })
    .jpeg({ quality: 92 })
    .toBuffer();
  // Read back the estimate of this very selfie (in a workspace of its own: another verification's identical
  // picture would be refused as a replay).
  const v = await selfieDecided(await makeWorkspace());
  expect(v.result, JSON.stringify(v)).toMatchObject({
    estimated_age: expect.any(Number),
    age_range: { min: expect.any(Number), max: expect.any(Number) },
    age_source: 'estimation',
  });
  probe = v.result;
}, 180_000);
afterAll(async () => {
  await rx.close();
  await stopOcr();
});

describe('step-up to a document (live)', () => {
  it('straddling selfie → resubmission_requested / document_required → a passport over the threshold → approved, age_source document', async () => {
    const E = probe.estimated_age;
    const w = await stepUpWorkspace({ age_threshold: E });
    const id = await consentedVerification(w, w.liveSecret);
    await uploadOk(w, id, { type: 'selfie' }, selfie);
    let v = await submitAndDecide(w, id);
    expect([v.status, v.reason, v.attempts_remaining]).toEqual(['resubmission_requested', 'document_required', 4]);
    expect(v.result).toMatchObject({ decision: 'refer', threshold: E, estimated_age: E, age_source: 'estimation' });
    expect(v.result.age_range.min).toBeLessThan(E);
    expect(v.result.age_range.max).toBeGreaterThanOrEqual(E);
    expect(v.completed_at).toBeNull(); // the session stays open
    // What the hosted page is told: stepped up, a document needed, the selfie already in.
    const [row] = await db().select().from(verifications).where(eq(verifications.id, id));
    expect(await captureState(db(), row, w.workspace.name)).toMatchObject({
      step_up: 'document',
      needs_document: true,
      missing: ['document_front', 'document_back'],
      reason: 'document_required',
    });

    // Required media of a stepped-up verification: the selfie already taken counts; the document's front, and its
    // back unless it is a passport.
    await uploadDoc(w, id, ['id_card', await I.renderDocument('id_card', 'front', herPortrait)]);
    expect((await get(w, id)).status).toBe('started');
    const missing = await submit(w, w.liveSecret, id);
    expect([missing.status, missing.json.error.code, missing.json.error.details.missing]).toEqual([
      422,
      'MISSING_REQUIRED_MEDIA',
      ['document_back'],
    ]);

    // The passport (the newest front) is the next attempt of five.
    await uploadDoc(w, id, ['passport', await passport(herPortrait, E + 5)]);
    v = await submitAndDecide(w, id);
    expect([v.status, v.reason, v.attempts_remaining]).toEqual(['approved', null, 3]);
    expect(v.result).toMatchObject({
      decision: 'pass',
      threshold: E,
      age: E + 5,
      age_source: 'document',
      document: { type: 'passport', source: 'mrz' },
      face_match: { match: true },
    });
    expect(v.result).not.toHaveProperty('estimated_age');
    expect(await webhooks(w, id)).toEqual(['resubmission_requested/document_required', 'approved/null']);
  }, 90_000);

  it('the same with a date of birth under the threshold → declined / age_below_threshold', async () => {
    const E = probe.estimated_age;
    const { w, v } = await steppedUpThen(await passport(herPortrait, E - 3));
    expect([v.status, v.reason]).toEqual(['declined', 'age_below_threshold']);
    expect(v.result).toMatchObject({ decision: 'fail', age: E - 3, age_source: 'document' });
    expect(await webhooks(w, v.id)).toEqual([
      'resubmission_requested/document_required',
      'declined/age_below_threshold',
    ]);
  }, 60_000);

  it("another person's face on the document → declined / identity_mismatch", async () => {
    const { w, v } = await steppedUpThen(await passport(otherPerson, probe.estimated_age + 5));
    expect([v.status, v.reason]).toEqual(['declined', 'identity_mismatch']);
    expect(v.result).toMatchObject({ decision: 'fail', age_source: 'document', face_match: { match: false } });
    expect(await webhooks(w, v.id)).toEqual(['resubmission_requested/document_required', 'declined/identity_mismatch']);
  }, 60_000);

  it('a phone photo of the passport is read at upload (201, the read kept); a glare-covered or too small one is refused at once (422 DOCUMENT_UNREADABLE), no attempt spent; the readable one decides: approved, age_source document', async () => {
    const E = probe.estimated_age;
    const w = await stepUpWorkspace({ age_threshold: E });
    const first = await selfieDecided(w);
    expect([first.status, first.reason, first.attempts_remaining]).toEqual([
      'resubmission_requested',
      'document_required',
      4,
    ]);
    const card = await flatCard('passport', 'front', { birthDate: bornAged(E + 5) }, herPortrait);
    const doc = { type: 'document', side: 'front', document_type: 'passport' };

    // Glare over the code at the bottom, and the whole page a few hundred pixels wide far from the camera: refused now.
    const glare = await phonePhoto(card, { rotate: 4, glare: { x: 0.5, y: 0.88, r: 0.22, strength: 1 }, seed: 3 });
    const small = await phonePhoto(card, { fill: 0.45, size: 360, seed: 4 });
    for (const bad of [glare, small]) {
      const r = await upload(w, w.liveSecret, first.id, doc, bad);
      expect([r.status, r.json.error?.code], JSON.stringify(r.json)).toEqual([422, 'DOCUMENT_UNREADABLE']);
      expect(r.json.error.message).toMatch(/tilt it away from the light so the code at the bottom has no glare/);
      expect(r.json.error.details.checks.document_read).toMatchObject({ passed: false });
    }
    let v = await get(w, first.id);
    expect([v.status, v.attempts_remaining]).toEqual(['resubmission_requested', 4]);

    // On a cluttered table, turned 12°, tilted 20° in perspective, a glare spot away from the code, JPEG 80.
    const photo = await phonePhoto(card, {
      rotate: 12,
      tilt: 20,
      fill: 0.68,
      background: 'clutter',
      glare: { x: 0.8, y: 0.2, r: 0.12, strength: 0.8 },
      quality: 80,
      seed: 5,
    });
    const r = await upload(w, w.liveSecret, first.id, doc, photo);
    expect(r.status, JSON.stringify(r.json)).toBe(201);
    const [row] = await db().select().from(media).where(eq(media.id, r.json.data.id));
    expect(row.readSealed).not.toBeNull();
    expect(row.readSealed!.toString('latin1')).not.toContain('ERIKSSON'); // sealed, not plain JSON
    expect(await openRead(db(), row)).toMatchObject({ source: 'mrz', mrz: { format: 'TD3', surname: 'ERIKSSON' } });

    v = await submitAndDecide(w, first.id);
    expect([v.status, v.reason, v.attempts_remaining]).toEqual(['approved', null, 3]);
    expect(v.result).toMatchObject({
      decision: 'pass',
      threshold: E,
      age: E + 5,
      age_source: 'document',
      document: { type: 'passport', source: 'mrz' },
      face_match: { match: true },
    });
  }, 180_000);

  it('a review workspace still refers the straddling selfie to a person (review)', async () => {
    const w = await makeWorkspace({ age_threshold: probe.estimated_age, webhook_url: rx.url });
    expect(w.workspace.estimationFallback).toBe('review'); // the default
    const v = await selfieDecided(w);
    expect([v.status, v.reason]).toEqual(['review', null]);
    expect(v.result).toMatchObject({ decision: 'refer', age_source: 'estimation' });
    expect(await webhooks(w, v.id)).toEqual(['review/null']);
  });

  it('in a document workspace a clear pass and a clear fail are decided by the estimate; a document uploaded without a step-up is accepted and not used', async () => {
    // Another person's passport, a child's date of birth: had it been used, it would decline.
    const unused: Doc = ['passport', await passport(otherPerson, 10)];
    const pass = await selfieDecided(await stepUpWorkspace({ age_threshold: Math.max(1, probe.age_range.min) }), [
      unused,
    ]);
    expect([pass.status, pass.reason]).toEqual(['approved', null]);
    expect(pass.result).toMatchObject({
      decision: 'pass',
      age_source: 'estimation',
      estimated_age: probe.estimated_age,
    });
    expect(pass.result).not.toHaveProperty('document');
    const fail = await selfieDecided(await stepUpWorkspace({ age_threshold: Math.min(120, probe.age_range.max + 1) }));
    expect([fail.status, fail.reason]).toEqual(['declined', 'age_below_threshold']);
    expect(fail.result).toMatchObject({ decision: 'fail', age_source: 'estimation' });
  }, 60_000);

  it('on the 5th attempt there is none left for a document: the estimate that cannot decide goes to a person', async () => {
    const w = await stepUpWorkspace({ age_threshold: probe.estimated_age });
    const id = await consentedVerification(w, w.liveSecret);
    await uploadOk(w, id, { type: 'selfie' }, selfie);
    // Four attempts already spent (what four resubmission cycles leave behind; those cycles are tested elsewhere).
    await db().update(verifications).set({ attemptsUsed: 4 }).where(eq(verifications.id, id));
    const v = await submitAndDecide(w, id);
    expect([v.status, v.reason, v.attempts_remaining]).toEqual(['review', null, 0]);
    expect(v.result).toMatchObject({ decision: 'refer', age_source: 'estimation' });
    const [row] = await db()
      .select({ stepUp: verifications.stepUp })
      .from(verifications)
      .where(eq(verifications.id, id));
    expect(row.stepUp).toBeNull();
  });

  it('test mode: a reviewer (or verification:decide) may ask an estimation verification for a document, to rehearse the step-up; other flows are refused', async () => {
    const w = await makeWorkspace();
    const id = await consentedVerification(w, w.testSecret);
    expect((await upload(w, w.testSecret, id, { type: 'selfie' }, selfie)).status).toBe(201);
    expect((await submit(w, w.testSecret, id)).json.data.status).toBe('review');
    const row = await decideReview(db(), {
      verificationId: id,
      status: 'resubmission_requested',
      reason: 'document_required',
      actor: 'operator',
    });
    expect([row.status, row.reason, row.stepUp]).toEqual(['resubmission_requested', 'document_required', 'document']);
    await upload(w, w.testSecret, id, { type: 'selfie' }, selfie);
    const r = await submit(w, w.testSecret, id);
    expect([r.status, r.json.error.details.missing]).toEqual([422, ['document_front', 'document_back']]);

    const docs = await makeWorkspace({ check_method: 'document_verification' });
    const did = await consentedVerification(docs, docs.testSecret);
    await upload(docs, docs.testSecret, did, { type: 'selfie' }, selfie);
    await upload(
      docs,
      docs.testSecret,
      did,
      { type: 'document', side: 'front', document_type: 'passport' },
      await passport(herPortrait, 40),
    );
    expect((await submit(docs, docs.testSecret, did)).json.data.status).toBe('review');
    await expect(
      decideReview(db(), {
        verificationId: did,
        status: 'resubmission_requested',
        reason: 'document_required',
        actor: 'operator',
      }),
    ).rejects.toMatchObject({ code: 'VALIDATION_ERROR', details: { fields: { reason: expect.any(Array) } } });
  }, 60_000);
});

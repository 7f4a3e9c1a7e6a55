/**
 * The live decision pipeline end to end, through the signed API and real images: every pipeline
 * transition of docs/api.md and every reason code, each produced by a real image or a controlled
 * failure (a lost media blob), never by a flag that skips the pipeline.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { media, mediaBlobs, pipelineJobs, webhookEvents } from '@/lib/db/schema';
import { GET as getOne } from '@/app/v1/verifications/[id]/route';
import { call } from '@/test/helpers/http';
import { makeWorkspace, type TestWorkspace } from '@/test/helpers/factories';
import { consentedVerification, submit, upload } from '@/test/helpers/upload';
import * as I from '@/test/helpers/images';
import * as F from '@/test/helpers/face-set';
import { analysisPool } from '@/lib/domain/media/pool';
import { stopOcr } from '@/lib/domain/documents/ocr';
import { openRead, sealRead } from '@/lib/domain/documents/read';
import { updateWorkspaceSettings } from '@/lib/domain/workspaces';
import { runDueJobs } from '.';
import { addToBlocklist } from '@/lib/domain/blocklist';
import { FACE_MATCH_THRESHOLD } from '../thresholds/thresholds';

const db = () => getDb();
const run = () => runDueJobs({ db: db(), retryDelayMs: () => 0 }, 50);

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

/** Creates, consents, uploads (selfie, then documents), submits and runs the pipeline. */
async function verify(
  w: TestWorkspace,
  media: { selfie: Buffer; front?: [string, Buffer]; back?: Buffer },
  body: object = {},
) {
  const id = await consentedVerification(w, w.liveSecret, body);
  await uploadAll(w, id, media);
  return submitAndRun(w, id);
}
async function uploadAll(
  w: TestWorkspace,
  id: string,
  media: { selfie: Buffer; front?: [string, Buffer]; back?: Buffer },
) {
  const s = await upload(w, w.liveSecret, id, { type: 'selfie' }, media.selfie);
  expect(s.status, JSON.stringify(s.json)).toBe(201);
  if (media.front)
    expect(
      (
        await upload(
          w,
          w.liveSecret,
          id,
          { type: 'document', side: 'front', document_type: media.front[0] },
          media.front[1],
        )
      ).status,
    ).toBe(201);
  if (media.back)
    expect(
      (
        await upload(
          w,
          w.liveSecret,
          id,
          { type: 'document', side: 'back', document_type: media.front![0] },
          media.back,
        )
      ).status,
    ).toBe(201);
}
async function submitAndRun(w: TestWorkspace, id: string) {
  const r = await submit(w, w.liveSecret, id);
  expect(r.status, JSON.stringify(r.json)).toBe(200);
  expect(r.json.data.status).toBe('submitted');
  await run();
  return get(w, id);
}
const events = async (id: string) =>
  (await db().select().from(webhookEvents).where(eq(webhookEvents.verificationId, id))).map((e) => e.status);

let faces: F.LabelledFace[];
const face = (id: string) => faces.find((f) => f.id === id)!.image;

beforeAll(async () => {
  await analysisPool().ready();
  faces = await F.labelledFaces((bytes, kind) => analysisPool().analyze(bytes, kind));
}, 180_000);
afterAll(() => stopOcr());

describe('Age / estimation (live)', () => {
  let w: TestWorkspace;
  /** A workspace whose age threshold (5) every adult face passes: for tests about something other than age. */
  let lenient: TestWorkspace;
  beforeAll(async () => {
    w = await makeWorkspace();
    lenient = await makeWorkspace({ age_threshold: 5 });
  });

  it('submitted → approved: pass with estimated_age, age_range, confidence (docs/api.md); Grace Hopper at 77 reads 92, range 80-100 (the old read high; no longer the clamp)', async () => {
    // The estimate is fitted on the logarithm of the age for the decisions at 18-25 and is loose for the old
    // (calib's people aged 65 or over: 15 years off on average; docs/accuracy.md). This black-and-white portrait read
    // 100, the clamp, until the estimate's output was bounded by what the calibration saw; 95 with that bound, and 92
    // since the fit reads the face's sex too (the analysis is deterministic). A change to the model or its fit
    // changes this figure, knowingly.
    const v = await verify(await makeWorkspace(), { selfie: face('grace_hopper') });
    expect(v.status).toBe('approved');
    expect(v.reason).toBeNull();
    expect(v.result).toMatchObject({
      decision: 'pass',
      threshold: 18,
      age_source: 'estimation',
      estimated_age: 92,
      age_range: { min: 80, max: 100 },
      confidence: 1,
    });
    expect(v.duplicate_check).toEqual({ checked: true, duplicate_count: 0, duplicates: [] });
    expect(await events(v.id)).toHaveLength(1);
  });

  it('submitted → review: the range straddles the threshold (refer)', async () => {
    const v = await verify(w, { selfie: face('sample6-1') });
    expect(v.status).toBe('review');
    expect(v.result.decision).toBe('refer');
    expect(v.result.age_range.min).toBeLessThan(18);
    expect(v.result.age_range.max).toBeGreaterThanOrEqual(18);
  });

  it('submitted → declined age_below_threshold: the whole range is below the threshold', async () => {
    const strict = await makeWorkspace({ age_threshold: 50 });
    const v = await verify(strict, { selfie: face('sample6-3') });
    expect([v.status, v.reason, v.result.decision]).toEqual(['declined', 'age_below_threshold', 'fail']);
  });

  it('fraud_detected: a face replayed on a screen, and a printed photo', async () => {
    const screen = await verify(w, { selfie: await F.screenReplay(face('sample1-2')) });
    expect([screen.status, screen.reason]).toEqual(['declined', 'fraud_detected']);
    const print = await verify(w, { selfie: await F.printedHalftone(face('sample3-2')) });
    expect([print.status, print.reason]).toEqual(['declined', 'fraud_detected']);
  });

  it('liveness_failed: the same picture as another verification (a camera never takes one frame twice)', async () => {
    const first = await verify(lenient, { selfie: face('sample5-4') });
    expect(first.status).toBe('approved');
    const again = await verify(lenient, { selfie: face('sample5-4') });
    expect([again.status, again.reason]).toEqual(['resubmission_requested', 'liveness_failed']);
    expect(again.attempts_remaining).toBe(4);
  });

  it('blocklist_match: another capture of a blocklisted face is declined', async () => {
    const bad = await verify(w, { selfie: face('grace_hopper') });
    expect(bad.status).toBe('approved');
    expect(await addToBlocklist(db(), { verificationId: bad.id, actor: 'test' })).toHaveProperty('id');
    const other = (await F.sameFaceVariants(face('grace_hopper'))).find((x) => x.name === 'closer')!.image;
    const v = await verify(w, { selfie: other });
    expect([v.status, v.reason]).toEqual(['declined', 'blocklist_match']);
    // Reported whatever the decision: the blocklisted account is also a duplicate.
    expect(v.duplicate_check.duplicates[0].verification_id).toBe(bad.id);
  });

  it('processing_error after retries (media lost), then a resubmission cycle is decided', async () => {
    const w = lenient;
    const id = await consentedVerification(w, w.liveSecret);
    await uploadAll(w, id, { selfie: face('sample1-0') });
    expect((await submit(w, w.liveSecret, id)).json.data.status).toBe('submitted');
    const [job] = await db().select().from(pipelineJobs).where(eq(pipelineJobs.verificationId, id));
    const ids = Object.values(job.mediaIds);
    await db().delete(mediaBlobs).where(eq(mediaBlobs.mediaId, ids[0]));
    await run();
    let v = await get(w, id);
    expect([v.status, v.reason]).toEqual(['resubmission_requested', 'processing_error']);
    const [after] = await db().select().from(pipelineJobs).where(eq(pipelineJobs.id, job.id));
    expect([after.status, after.tries]).toEqual(['done', 3]);
    // The user re-uploads (→ started) and submits again: decided.
    await uploadAll(w, id, { selfie: face('sample1-0') });
    expect((await get(w, id)).status).toBe('started');
    v = await submitAndRun(w, id);
    expect(v.status).toBe('approved');
    expect(v.attempts_remaining).toBe(3);
  });

  it('max_attempts_exceeded: the 5th attempt that would be resubmitted is declined', async () => {
    const ws = await makeWorkspace({ age_threshold: 5 });
    const seen = await verify(ws, { selfie: face('sample5-1') });
    expect(seen.status).toBe('approved');
    const id = await consentedVerification(ws, ws.liveSecret);
    const statuses: string[] = [];
    for (let i = 0; i < 5; i++) {
      await uploadAll(ws, id, { selfie: face('sample5-1') }); // the same picture: liveness_failed each time
      const v = await submitAndRun(ws, id);
      statuses.push(`${v.status}/${v.reason}`);
    }
    expect(statuses).toEqual([
      ...Array(4).fill('resubmission_requested/liveness_failed'),
      'declined/max_attempts_exceeded',
    ]);
  }, 60_000);
});

describe('Age / document_verification and KYC (live)', () => {
  let w: TestWorkspace;
  let kyc: TestWorkspace;
  beforeAll(async () => {
    w = await makeWorkspace({ check_method: 'document_verification' });
    kyc = await makeWorkspace({}, { flow: 'kyc' });
  });

  it('passport: MRZ read, face matched, age from the date of birth → approved', async () => {
    const v = await verify(w, {
      selfie: face('astronaut'),
      front: [
        'passport',
        await I.renderDocument('passport', 'front', (await F.sameFaceVariants(face('astronaut')))[1].image),
      ],
    });
    expect(v.status, JSON.stringify(v)).toBe('approved');
    expect(v.result).toMatchObject({
      decision: 'pass',
      threshold: 18,
      age: 52,
      document: {
        type: 'passport',
        source: 'mrz',
        issuing_country: 'UTO',
        number_masked: '•••••02C3',
        expiry_date: '2031-04-15',
      },
    });
    expect(v.result.face_match.similarity).toBeGreaterThanOrEqual(FACE_MATCH_THRESHOLD);
  });

  it('ID card under age (MRZ on the back) → declined age_below_threshold', async () => {
    const doc = { birthDate: '2010-03-04', surname: 'OLSEN', givenNames: 'PER' };
    const v = await verify(w, {
      selfie: face('sample3-1'),
      front: ['id_card', await I.renderDocument('id_card', 'front', face('sample3-1'), doc)],
      back: await I.renderDocument('id_card', 'back', undefined, doc),
    });
    expect([v.status, v.reason, v.result.age]).toEqual(['declined', 'age_below_threshold', 16]);
  });

  it('identity_mismatch: the selfie is not the person on the document', async () => {
    const v = await verify(w, {
      selfie: face('grace_hopper'),
      front: ['passport', await I.renderDocument('passport', 'front', face('sample3-1'))],
    });
    expect([v.status, v.reason]).toEqual(['declined', 'identity_mismatch']);
    expect(v.result.face_match.similarity).toBeLessThan(FACE_MATCH_THRESHOLD);
  });

  it('the read kept at upload decides: the pipeline does not read the document again', async () => {
    const selfie = face('sample1-2');
    const id = await consentedVerification(w, w.liveSecret);
    await uploadAll(w, id, { selfie, front: ['passport', await I.renderDocument('passport', 'front', selfie)] });
    const [row] = await db()
      .select()
      .from(media)
      .where(and(eq(media.verificationId, id), eq(media.type, 'document')));
    const kept = await openRead(db(), row);
    expect(kept).toMatchObject({ source: 'mrz', mrz: { format: 'TD3', birthDate: '740812' } });
    // The kept read, sealed again with a child's date of birth: had the pipeline read the image (1974), it would approve.
    if (kept?.source !== 'mrz') throw new Error('no MRZ read kept');
    const child = { ...kept, mrz: { ...kept.mrz, birthDate: '100304' } };
    await db()
      .update(media)
      .set({ readSealed: await sealRead(db(), id, row.id, child) })
      .where(eq(media.id, row.id));
    const v = await submitAndRun(w, id);
    expect([v.status, v.reason, v.result.age]).toEqual(['declined', 'age_below_threshold', 16]);
  });

  it('an upload without a kept read (made before reads were kept) is read by the pipeline', async () => {
    // A workspace of its own: the test above sends the same selfie (the same picture again is liveness_failed).
    const own = await makeWorkspace({ check_method: 'document_verification' });
    const selfie = face('sample1-2');
    const id = await consentedVerification(own, own.liveSecret);
    await uploadAll(own, id, { selfie, front: ['passport', await I.renderDocument('passport', 'front', selfie)] });
    await db().update(media).set({ readSealed: null }).where(eq(media.verificationId, id));
    const v = await submitAndRun(own, id);
    expect([v.status, v.reason, v.result?.age], JSON.stringify(v.result)).toEqual(['approved', null, 52]);
  });

  it('an expired document is declined (document_expired)', async () => {
    const v = await verify(w, {
      selfie: face('sample4-3'),
      front: ['passport', await I.renderDocument('passport', 'front', face('sample4-3'), { expiryDate: '2024-01-31' })],
    });
    expect([v.status, v.reason]).toEqual(['declined', 'document_expired']);
  });

  it('driving licence: the AAMVA PDF417 barcode on the back gives the date of birth', async () => {
    const v = await verify(w, {
      selfie: face('sample2-0'),
      front: ['driving_licence', await I.renderDocument('driving_licence', 'front', face('sample2-0'))],
      back: await I.renderDocument('driving_licence', 'back'),
    });
    expect(v.status, JSON.stringify(v)).toBe('approved');
    expect(v.result.document.source).toBe('pdf417');
  });

  it('KYC: the result carries the person and the document, number masked', async () => {
    const v = await verify(kyc, {
      selfie: face('sample5-3'),
      front: ['id_card', await I.renderDocument('id_card', 'front', face('sample5-3'))],
      back: await I.renderDocument('id_card', 'back'),
    });
    expect(v.status, JSON.stringify(v)).toBe('approved');
    expect(v.result).toMatchObject({
      decision: 'pass',
      person: { surname: 'ERIKSSON', given_names: 'ANNA MARIA', date_of_birth: '1974-08-12', sex: 'F' },
      document: { type: 'id_card', number_masked: '•••••02C3' },
    });
  });
});

describe('duplicate_check through the pipeline', () => {
  it('per account, own external_id excluded, checked:false when duplicates are allowed', async () => {
    const w = await makeWorkspace({ age_threshold: 5 });
    const variants = await F.sameFaceVariants(face('sample1-1'));
    const pick = (n: string) => variants.find((x) => x.name === n)!.image;
    const a1 = await verify(w, { selfie: pick('rotated 8°') }, { external_id: 'acct-1' });
    const a2 = await verify(w, { selfie: pick('closer') }, { external_id: 'acct-2' });
    expect([a1.status, a2.status]).toEqual(['approved', 'approved']);
    expect(a2.duplicate_check.duplicate_count).toBe(1);
    expect(a2.duplicate_check.duplicates[0]).toMatchObject({
      verification_id: a1.id,
      external_id: 'acct-1',
      verified_at: a1.completed_at,
    });
    // acct-1 again: its own earlier verification is excluded, acct-2 is found.
    const a1b = await verify(w, { selfie: pick('darker') }, { external_id: 'acct-1' });
    expect(a1b.duplicate_check.duplicates.map((d: { external_id: string }) => d.external_id)).toEqual(['acct-2']);
    // No external_id: acct-1 counts once (at its strongest of two verifications), acct-2 once.
    const anon = await verify(w, { selfie: pick('low resolution') });
    expect(anon.duplicate_check.duplicate_count).toBe(2);
    expect(new Set(anon.duplicate_check.duplicates.map((d: { external_id: string }) => d.external_id))).toEqual(
      new Set(['acct-1', 'acct-2']),
    );
    const scores = anon.duplicate_check.duplicates.map((d: { similarity_score: number }) => d.similarity_score);
    expect(scores).toEqual([...scores].sort((x: number, y: number) => y - x));
    // A different person matches nobody.
    expect((await verify(w, { selfie: face('sample4-3') })).duplicate_check).toEqual({
      checked: true,
      duplicate_count: 0,
      duplicates: [],
    });
    await updateWorkspaceSettings(db(), w.workspace.id, { allow_duplicates: true });
    expect((await verify(w, { selfie: pick('brighter') })).duplicate_check).toEqual({
      checked: false,
      duplicate_count: 0,
      duplicates: [],
    });
  }, 60_000);
});

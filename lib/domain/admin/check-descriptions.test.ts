/**
 * Every check the case view can meet has its own wording: the upload checks of lib/domain/media/validate.ts and the
 * measurements of the pipeline's checks (lib/domain/pipeline/decide.ts). The keys are taken from the code itself, by
 * running the checks (validation over real image bytes and analyses, every pipeline check of every flow over
 * evidence that reaches each branch), never from a list copied here: a check added later without a description
 * fails this test.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { checkDocument, checkFile, checkSelfie, type Checks } from '../media/validate';
import type { Analysis, FaceMeasure } from '../media/types';
import { checksFor, type Evidence } from '../pipeline/decide';
import { PIPELINE_CHECKS } from '../pipeline/checks/list';
import { AGE_RANGES } from '../thresholds/thresholds';
import { NO_DESCRIPTION, pipelineFacts, uploadFact } from './evidence';

const now = new Date('2026-11-22T12:00:00Z');
const face = (over: Partial<FaceMeasure> = {}): FaceMeasure => ({
  score: 1,
  detector_score: 1,
  mesh_score: 1,
  box: [0, 0, 100, 100],
  size_fraction: 0.5,
  outside_fraction: 0,
  yaw: 0,
  age_features: null,
  brightness: 120,
  overexposed_fraction: 0,
  sharpness: 100,
  regions: {
    left_eye_texture: 30,
    right_eye_texture: 30,
    mouth_texture: 30,
    left_eye_color_distance: 20,
    right_eye_color_distance: 20,
    mouth_color_distance: 20,
  },
  age: 40,
  gender: 'female',
  gender_score: 0.9,
  real: 0.7,
  live: 0.9,
  embedding: [1, 0, 0],
  replay_score: 5,
  moire_score: 1,
  ...over,
});
const light = { brightness: 120, overexposed_fraction: 0, sharpness: 100 };
const analysis = (faces: FaceMeasure[]): Analysis => ({
  version: 'test',
  width: 640,
  height: 480,
  whole: light,
  faces,
  document: { ...light, area_fraction: 0.5, fill: 0.9, aspect: 1.58, box: [0, 0, 10, 10] },
  stored: Buffer.alloc(0),
});

/** The upload checks validation records, over a readable image, a selfie analysis with a face and without, a document's front and back. */
async function uploadCheckKeys(): Promise<Set<string>> {
  const keys = new Set<string>();
  const png = await sharp({ create: { width: 640, height: 480, channels: 3, background: '#808080' } })
    .png()
    .toBuffer();
  for (const k of Object.keys((await checkFile(png)).checks)) keys.add(k);
  for (const faces of [[face()], [], [face(), face()]]) {
    const checks: Checks = {};
    checkSelfie(analysis(faces), checks);
    for (const k of Object.keys(checks)) keys.add(k);
  }
  for (const side of ['front', 'back'] as const) {
    const checks: Checks = {};
    checkDocument(analysis([face()]), checks, side);
    for (const k of Object.keys(checks)) keys.add(k);
  }
  return keys;
}

const birthDate = '800101';
const mrz = {
  source: 'mrz' as const,
  corrected: false,
  mrz: {
    format: 'TD3' as const,
    documentCode: 'P',
    issuingCountry: 'UTO',
    surname: 'ERIKSSON',
    givenNames: 'ANNA',
    documentNumber: 'L898902C3',
    nationality: 'UTO',
    birthDate,
    sex: 'F' as const,
    expiryDate: '310415',
  },
};
const challenge = (over: object = {}) => ({
  id: 'lch_1',
  passed: true,
  failure: null,
  steps: [],
  issued_at: now.toISOString(),
  completed_at: now.toISOString(),
  frames: [],
  ...over,
});

/** Evidence that takes each check down each of its branches. */
function evidenceVariants(): Evidence[] {
  const base: Evidence = {
    flow: 'age',
    checkMethod: 'estimation',
    ageThreshold: 18,
    selfie: face(),
    blocklist: null,
    blocklistThreshold: 0.68,
    otherCapture: null,
  };
  // An age whose range straddles 18 (the pipeline refers it): with estimation_fallback = document it steps up.
  const refer = (AGE_RANGES.lower.find(([t]) => t === 18)![1] + AGE_RANGES.upper.find(([t]) => t === 18)![1]) / 2;
  const selfies = [
    face(),
    face({ embedding: null }),
    face({ age: null }),
    face({ replay_score: 1e6 }),
    face({ moire_score: 1e6 }),
    face({ live: 0 }),
    face({ age: refer }),
    face({ age: 5 }),
    null,
  ];
  const active = [
    undefined,
    { required: true, challenge: null, selfieSimilarity: null, selfieAfterChallengeMs: null },
    { required: true, challenge: challenge(), selfieSimilarity: 0.99, selfieAfterChallengeMs: 1000 },
    {
      required: true,
      challenge: challenge({ skipped: true, passed: false }),
      selfieSimilarity: null,
      selfieAfterChallengeMs: null,
    },
    {
      required: true,
      challenge: challenge({ passed: false, failure: 'timeout' }),
      selfieSimilarity: null,
      selfieAfterChallengeMs: null,
    },
    { required: false, challenge: challenge(), selfieSimilarity: 0.99, selfieAfterChallengeMs: 1000 },
  ] as Evidence['activeLiveness'][];
  const documents: Evidence['document'][] = [
    undefined,
    { type: 'passport', portrait: null, read: null },
    { type: 'passport', portrait: face(), read: null },
    { type: 'passport', portrait: face(), read: mrz },
    { type: 'passport', portrait: face({ embedding: [0, 1, 0] }), read: mrz },
    { type: 'passport', portrait: face(), read: { ...mrz, mrz: { ...mrz.mrz, expiryDate: '200101' } } },
  ];
  const out: Evidence[] = [];
  for (const route of [
    { flow: 'age', checkMethod: 'estimation' },
    { flow: 'age', checkMethod: 'estimation', estimationFallback: 'document' },
    { flow: 'age', checkMethod: 'document_verification' },
    { flow: 'kyc', checkMethod: null },
  ] as const) {
    for (const selfie of selfies) out.push({ ...base, ...route, selfie });
    for (const activeLiveness of active) out.push({ ...base, ...route, activeLiveness });
    for (const document of documents) out.push({ ...base, ...route, document });
    out.push(
      { ...base, ...route, blocklist: { id: 'blk_1', similarity: 0.99 } },
      { ...base, ...route, otherCapture: { verificationId: 'ver_1', similarity: 0.9999 } },
    );
  }
  return out;
}

/** What every check of every flow measures, over every variant: each check runs as decide() runs it, after the earlier ones continued. */
function pipelineCheckKeys(): Set<string> {
  return new Set([...measuredBy().values()].flatMap((k) => [...k]));
}

/** The same, by check: the keys each check measured. */
function measuredBy(): Map<string, Set<string>> {
  const keys = new Map<string, Set<string>>();
  for (const ev of evidenceVariants()) {
    for (const check of checksFor(ev)) {
      const r = check.run(ev, now);
      if (!keys.has(check.name)) keys.set(check.name, new Set());
      for (const k of Object.keys(r.measured)) keys.get(check.name)!.add(k);
      if (r.status === 'decided') break;
    }
  }
  return keys;
}

describe('every check in the case view has its description', () => {
  it('each upload check validation records', async () => {
    const keys = await uploadCheckKeys();
    // The run reached the checks of each kind (a change that stopped recording them would not pass silently).
    expect(keys.size).toBeGreaterThanOrEqual(12);
    const missing = [...keys].filter(
      (k) => uploadFact(k, { value: 1, threshold: 1, passed: true }).meaning === NO_DESCRIPTION,
    );
    expect(missing).toEqual([]);
  });

  it("each measurement of each pipeline check is in its check's row of PIPELINE_CHECKS (the order the case view shows)", () => {
    const outside = [...measuredBy()].flatMap(([name, keys]) => {
      const row: readonly string[] = PIPELINE_CHECKS.find((c) => c.id === name)?.measures ?? [];
      return [...keys].filter((k) => !row.includes(k)).map((k) => `${name}: ${k}`);
    });
    expect(outside).toEqual([]);
  });

  it('each measurement of each pipeline check', () => {
    const keys = pipelineCheckKeys();
    expect(keys.size).toBeGreaterThanOrEqual(15);
    const missing = [...keys].filter((k) =>
      pipelineFacts({ [k]: 1 }, { duplicateThreshold: 0.68 }).some((f) => f.meaning === NO_DESCRIPTION),
    );
    expect(missing).toEqual([]);
  });
});

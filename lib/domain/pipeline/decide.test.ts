/**
 * The decision rules, from evidence: the cases no packaged photo produces (docs/accuracy.md "How a decision is
 * made: the pipeline", its limits).
 */
import { describe, expect, it } from 'vitest';
import type { FaceMeasure } from '../media/types';
import { decide, estimationResult, type Evidence } from './decide';
import { AGE_RANGES } from '../thresholds/thresholds';
import { AGE_CALIBRATION, estimateAge } from '../faces/age';

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
  age: 60,
  gender: 'female',
  gender_score: 0.9,
  real: 0.7,
  live: 0.9,
  embedding: [1, 0, 0],
  replay_score: 5,
  ...over,
});
const ev = (over: Partial<Evidence> = {}): Evidence => ({
  flow: 'age',
  checkMethod: 'estimation',
  ageThreshold: 18,
  selfie: face(),
  blocklist: null,
  blocklistThreshold: 0.68,
  otherCapture: null,
  ...over,
});

describe('decide', () => {
  it('selfie_quality when the selfie has no usable face description or no age', () => {
    expect(decide(ev({ selfie: face({ embedding: null }) }), now)).toMatchObject({
      outcome: 'resubmit',
      reason: 'selfie_quality',
    });
    expect(decide(ev({ selfie: null }), now)).toMatchObject({ outcome: 'resubmit', reason: 'selfie_quality' });
    expect(decide(ev({ selfie: face({ age: null, age_features: null }) }), now)).toMatchObject({
      outcome: 'resubmit',
      reason: 'selfie_quality',
    });
  });

  it("liveness_failed when Human's liveness score is under the floor", () => {
    expect(decide(ev({ selfie: face({ live: 0.05 }) }), now)).toMatchObject({
      outcome: 'resubmit',
      reason: 'liveness_failed',
    });
    expect(decide(ev({ selfie: face({ live: 0.18 }) }), now).outcome).toBe('approve');
  });

  it('checks in order: a replay is fraud before a blocklist match, a blocklist match before liveness', () => {
    const all = ev({ selfie: face({ replay_score: 300, live: 0.01 }), blocklist: { id: 'blk', similarity: 0.9 } });
    expect(decide(all, now).reason).toBe('fraud_detected');
    expect(decide({ ...all, selfie: face({ live: 0.01 }) }, now).reason).toBe('blocklist_match');
    expect(
      decide({ ...all, blocklist: { id: 'blk', similarity: 0.5 }, selfie: face({ live: 0.01 }) }, now).reason,
    ).toBe('liveness_failed');
  });

  it('document flows: no portrait or no read → document_quality', () => {
    const base = ev({ checkMethod: 'document_verification' });
    expect(decide({ ...base, document: { type: 'passport', portrait: null, read: null } }, now).reason).toBe(
      'document_quality',
    );
    expect(decide({ ...base, document: { type: 'passport', portrait: face(), read: null } }, now).reason).toBe(
      'document_quality',
    );
  });

  it('estimation result: pass / refer / fail from the fitted range table (thresholds.ts, AGE_RANGES), by the read sex', () => {
    const cut = (rows: [number, number][], t: number) => rows.find(([x]) => x === t)![1];
    // The committed table has lower cuts per read sex (docs/api.md "The age estimate's result").
    const { female, male } = AGE_RANGES.by_read_sex!;
    const pass18 = cut(male.lower, 18);
    const fail18 = cut(AGE_RANGES.upper, 18);
    // Pass exactly from the 18 cut on: the range's lower end reaches 18 there and not a hair below.
    expect(estimationResult(pass18, 18, 0.9)).toMatchObject({ decision: 'pass', threshold: 18 });
    expect(estimationResult(pass18, 18, 0.9).age_range.min).toBeGreaterThanOrEqual(18);
    expect(estimationResult(pass18 - 0.05, 18, 0.9).decision).toBe('refer');
    // A face read as a woman is judged by her table's cut; without a reading, by the stricter of the two.
    const passWoman = cut(female.lower, 18);
    expect(passWoman).toBeLessThan(pass18);
    expect(estimationResult(passWoman, 18, 0.1).decision).toBe('pass');
    expect(estimationResult(passWoman - 0.05, 18, 0.1).decision).toBe('refer');
    expect(estimationResult(passWoman, 18, 0.9).decision).toBe('refer');
    expect(estimationResult(passWoman, 18).decision).toBe('refer');
    expect(estimationResult(pass18, 18).decision).toBe('pass');
    // Fail under the upper cut of 18 (shared): the range's upper end falls under 18; at the cut a person decides.
    for (const m of [0.1, 0.9, null]) {
      expect(estimationResult(fail18 - 0.05, 18, m)).toMatchObject({ decision: 'fail' });
      expect(estimationResult(fail18 - 0.05, 18, m).age_range.max).toBeLessThan(18);
      expect(estimationResult(fail18, 18, m).decision).toBe('refer');
    }
    // A threshold between two of the table's passes with the next one up: never on a cut fitted for a lower one.
    const [above] = female.lower.filter(([t]) => t > 30);
    expect(estimationResult(above[1] - 0.05, 31, 0.1).decision).not.toBe('pass');
    // The range always holds the rounded estimate, on every outcome.
    for (const e of [3, 9.4, 15, 18.6, 24, 37, 52, 80]) {
      const r = estimationResult(e, 18);
      expect(r.age_range.min).toBeLessThanOrEqual(r.estimated_age);
      expect(r.age_range.max).toBeGreaterThanOrEqual(r.estimated_age);
    }
    // Confidence: the probability of the decided side, higher the further the estimate is from the threshold.
    const c = (a: number) => estimationResult(a, 18).confidence;
    expect(c(40)).toBeGreaterThan(c(30));
    expect(c(40)).toBeLessThanOrEqual(1);
    expect(c(pass18)).toBeGreaterThan(0.9);
    expect(c(fail18 - 1)).toBeGreaterThan(0.5);
    expect(c(5)).toBeGreaterThan(0.95);
  });

  it("the estimate is made from the networks' outputs with the calibration in force, not the one stored with the analysis", () => {
    // Stored as 60 by an older calibration; the networks' outputs and the face description say a child: declined.
    // (The description is the committed calibration's mean face moved one unit of its term towards the young.)
    const d = AGE_CALIBRATION.description!;
    const norm = d.weights.reduce((s, w) => s + w * w, 0);
    const childish = d.mean.map((m, j) => m - d.weights[j] / norm);
    const child = face({
      age: 60,
      embedding: childish,
      age_features: { faceres: 6, faceres_mirror: 6, faceres_deep_tight: 6, faceres_deep_tight_mirror: 6, face_api: 6 },
    });
    expect(decide(ev({ selfie: child }), now)).toMatchObject({ outcome: 'decline', reason: 'age_below_threshold' });
    expect(decide(ev({ selfie: face({ age: 60 }) }), now).outcome).toBe('approve');
  });

  it("the age check judges the range by the face's read sex (faceres-deep's own reading, age_features.male)", () => {
    // Networks' readings at which a face read as a woman clears her table's cut at 18 and one read as a man does not
    // clear his: approved for her, a person decides for him, and for a face without a reading (the stricter table).
    const { female, male } = AGE_RANGES.by_read_sex!;
    const cut = (rows: [number, number][]) => rows.find(([t]) => t === 18)![1];
    const views = (x: number, m?: number) => ({
      faceres_deep_tight: x,
      faceres_deep_tight_mirror: x,
      face_api: x,
      ...(m === undefined ? {} : { male: m }),
    });
    const embedding = AGE_CALIBRATION.description!.mean;
    let x = 10;
    while (!(
      estimateAge(views(x, 0.1), embedding)! >= cut(female.lower) &&
      estimateAge(views(x, 0.9), embedding)! < cut(male.lower) &&
      estimateAge(views(x), embedding)! < cut(male.lower)
    ))
      x += 0.1;
    expect(x).toBeLessThan(80);
    const at = (m?: number) =>
      decide(ev({ selfie: face({ age: 20, embedding, age_features: views(x, m) }) }), now).outcome;
    expect(at(0.1)).toBe('approve');
    expect(at(0.9)).toBe('review');
    expect(at()).toBe('review');
  });

  it('active liveness, where required: a passed challenge of the same person right before the selfie; skipped → review', () => {
    const challenge = {
      id: 'lch_1',
      passed: true,
      failure: null,
      steps: ['left', 'right', 'straight'] as const,
      issued_at: '',
      completed_at: '',
      frames: [],
    };
    const al = (over: object) =>
      ev({
        activeLiveness: {
          required: true,
          challenge: { ...challenge, steps: [...challenge.steps] },
          selfieSimilarity: 0.97,
          selfieAfterChallengeMs: 5_000,
          ...over,
        },
      });
    expect(decide(al({}), now).outcome).toBe('approve');
    expect(decide(al({ challenge: null }), now)).toMatchObject({ outcome: 'resubmit', reason: 'liveness_failed' });
    expect(
      decide(al({ challenge: { ...challenge, steps: [], passed: false, failure: 'still_image' } }), now),
    ).toMatchObject({ outcome: 'resubmit', reason: 'liveness_failed' });
    expect(decide(al({ selfieSimilarity: 0.8 }), now).checks.signal).toBe(
      'the selfie is not the person of the head-turn challenge',
    );
    expect(decide(al({ selfieAfterChallengeMs: 11 * 60_000 }), now).checks.signal).toBe(
      'the selfie was not taken right after the head-turn challenge',
    );
    // The accessible alternative: what would be approved goes to a person; what is declined stays declined.
    const skipped = al({ challenge: { ...challenge, steps: [], passed: false, skipped: true } });
    expect(decide(skipped, now)).toMatchObject({ outcome: 'review', reason: null });
    expect(decide({ ...skipped, ageThreshold: 99 }, now).outcome).not.toBe('approve');
    // Not required (an API upload): the passive checks only.
    expect(
      decide(
        ev({
          activeLiveness: { required: false, challenge: null, selfieSimilarity: null, selfieAfterChallengeMs: null },
        }),
        now,
      ).outcome,
    ).toBe('approve');
  });

  it('presentation attack: the moiré score alone declines as fraud', () => {
    expect(decide(ev({ selfie: face({ replay_score: 5, moire_score: 40 }) }), now)).toMatchObject({
      outcome: 'decline',
      reason: 'fraud_detected',
      checks: { signal: 'screen moiré on the face' },
    });
    expect(decide(ev({ selfie: face({ replay_score: 5, moire_score: 10 }) }), now).outcome).toBe('approve');
  });
});

describe('step-up to a document (estimation_fallback, docs/api.md "Step-up to a document")', () => {
  // The age model's ranges change with the model: each case takes its threshold from the estimate itself. At the
  // estimate the range straddles (refer); at 1 all of it is above (pass); at 120 all of it is below (fail).
  const at = (threshold: number, over: Partial<Evidence> = {}) => decide(ev({ ageThreshold: threshold, ...over }), now);
  const passport = (birthDate: string, portrait = face()) => ({
    type: 'passport' as const,
    portrait,
    read: {
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
    },
  });

  it('an estimate that cannot decide asks for a document instead of a person; pass and fail stand', () => {
    const refer = at(60, { estimationFallback: 'document' });
    expect(refer).toMatchObject({
      outcome: 'resubmit',
      reason: 'document_required',
      result: { decision: 'refer', threshold: 60, age_source: 'estimation' },
      checks: { step_up: 'document' },
    });
    expect(at(1, { estimationFallback: 'document' })).toMatchObject({
      outcome: 'approve',
      reason: null,
      result: { decision: 'pass', age_source: 'estimation' },
    });
    expect(at(120, { estimationFallback: 'document' })).toMatchObject({
      outcome: 'decline',
      reason: 'age_below_threshold',
      result: { decision: 'fail', age_source: 'estimation' },
    });
    // `review` (the default, and absent): a person decides, as the interface says.
    expect(at(60, { estimationFallback: 'review' })).toMatchObject({
      outcome: 'review',
      reason: null,
      result: { decision: 'refer', age_source: 'estimation' },
    });
    expect(at(60)).toMatchObject({ outcome: 'review', reason: null });
    // The checks before the estimate still decide first: a screen replay is fraud, not a reason to ask for a document.
    expect(at(60, { estimationFallback: 'document', selfie: face({ replay_score: 300 }) }).reason).toBe(
      'fraud_detected',
    );
  });

  it('once stepped up, the document decides: its date of birth and the face match, age_source document', () => {
    const stepped = (doc: Evidence['document'], threshold = 60) =>
      at(threshold, { estimationFallback: 'document', stepUp: 'document', document: doc });
    // Born 1960-01-01: 66 on the decision day, over 60.
    expect(stepped(passport('600101'))).toMatchObject({
      outcome: 'approve',
      reason: null,
      result: {
        decision: 'pass',
        threshold: 60,
        age: 66,
        age_source: 'document',
        document: { type: 'passport', source: 'mrz' },
      },
    });
    expect(stepped(passport('800101'))).toMatchObject({
      outcome: 'decline',
      reason: 'age_below_threshold',
      result: { decision: 'fail', age: 46, age_source: 'document' },
    });
    expect(stepped(passport('600101', face({ embedding: [0, 1, 0] })))).toMatchObject({
      outcome: 'decline',
      reason: 'identity_mismatch',
      result: { age_source: 'document' },
    });
    expect(stepped({ type: 'passport', portrait: face(), read: null })).toMatchObject({
      outcome: 'resubmit',
      reason: 'document_quality',
      result: null,
    });
    // The estimate is not consulted again: a threshold the estimate would pass is still decided by the document.
    expect(stepped(passport('800101'), 1).result).toMatchObject({ age: 46, age_source: 'document' });
    // With the fallback switched back to review after the step-up, the document still decides.
    expect(at(60, { stepUp: 'document', document: passport('600101') }).outcome).toBe('approve');
  });

  it('age_source on every Age result: document_verification is document; KYC decides no age and has none', () => {
    expect(at(60, { checkMethod: 'document_verification', document: passport('600101') }).result).toMatchObject({
      age_source: 'document',
    });
    expect(at(60, { flow: 'kyc', checkMethod: null, document: passport('600101') }).result).not.toHaveProperty(
      'age_source',
    );
  });
});

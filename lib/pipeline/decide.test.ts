/** The decision rules, from evidence: the cases no packaged photo produces (see the README's limits). */
import { describe, expect, it } from 'vitest';
import type { FaceMeasure } from '../media/types';
import { decide, estimationResult, type Evidence } from './decide';

const now = new Date('2026-11-22T12:00:00Z');
const face = (over: Partial<FaceMeasure> = {}): FaceMeasure => ({
  score: 1, detector_score: 1, mesh_score: 1, box: [0, 0, 100, 100], size_fraction: 0.5, outside_fraction: 0, yaw: 0, age_features: { faceres: 35, face_api: 35 }, brightness: 120, overexposed_fraction: 0, sharpness: 100,
  regions: { left_eye_texture: 30, right_eye_texture: 30, mouth_texture: 30, left_eye_color_distance: 20, right_eye_color_distance: 20, mouth_color_distance: 20 },
  age: 60, gender: 'female', gender_score: 0.9, real: 0.7, live: 0.9, embedding: [1, 0, 0], replay_score: 5, ...over,
});
const ev = (over: Partial<Evidence> = {}): Evidence => ({ flow: 'age', checkMethod: 'estimation', ageThreshold: 18, selfie: face(), blocklist: null, blocklistThreshold: 0.68, otherCapture: null, ...over });

describe('decide', () => {
  it('selfie_quality when the selfie has no usable face description or no age', () => {
    expect(decide(ev({ selfie: face({ embedding: null }) }), now)).toMatchObject({ outcome: 'resubmit', reason: 'selfie_quality' });
    expect(decide(ev({ selfie: null }), now)).toMatchObject({ outcome: 'resubmit', reason: 'selfie_quality' });
    expect(decide(ev({ selfie: face({ age: null }) }), now)).toMatchObject({ outcome: 'resubmit', reason: 'selfie_quality' });
  });

  it("liveness_failed when Human's liveness score is under the floor", () => {
    expect(decide(ev({ selfie: face({ live: 0.05 }) }), now)).toMatchObject({ outcome: 'resubmit', reason: 'liveness_failed' });
    expect(decide(ev({ selfie: face({ live: 0.18 }) }), now).outcome).toBe('approve');
  });

  it('checks in order: a replay is fraud before a blocklist match, a blocklist match before liveness', () => {
    const all = ev({ selfie: face({ replay_score: 300, live: 0.01 }), blocklist: { id: 'blk', similarity: 0.9 } });
    expect(decide(all, now).reason).toBe('fraud_detected');
    expect(decide({ ...all, selfie: face({ live: 0.01 }) }, now).reason).toBe('blocklist_match');
    expect(decide({ ...all, blocklist: { id: 'blk', similarity: 0.5 }, selfie: face({ live: 0.01 }) }, now).reason).toBe('liveness_failed');
  });

  it('document flows: no portrait or no read → document_quality', () => {
    const base = ev({ checkMethod: 'document_verification' });
    expect(decide({ ...base, document: { type: 'passport', portrait: null, read: null } }, now).reason).toBe('document_quality');
    expect(decide({ ...base, document: { type: 'passport', portrait: face(), read: null } }, now).reason).toBe('document_quality');
  });

  it('estimation result: pass / refer / fail around the threshold, range from the measured margins of the band', () => {
    // 50+: 21 below, 16 above; 18-25: 11 below, 8 above; under 18: 5 below, 11 above (thresholds.ts, AGE_MARGINS).
    expect(estimationResult(52.3, 18)).toMatchObject({ decision: 'pass', estimated_age: 52, age_range: { min: 31, max: 69 } });
    expect(estimationResult(23.6, 18)).toMatchObject({ decision: 'refer', age_range: { min: 12, max: 32 } });
    expect(estimationResult(5.2, 18)).toMatchObject({ decision: 'fail', age_range: { min: 0, max: 17 } });
    // A 30-year-old estimate is referred at 18: teenagers were estimated that old (below: 18 years).
    expect(estimationResult(30, 18)).toMatchObject({ decision: 'refer', age_range: { min: 12, max: 51 } });
    const c = (a: number) => estimationResult(a, 18).confidence;
    expect(c(40)).toBeGreaterThan(c(30));
    expect(c(18)).toBeCloseTo(0.5, 2);
  });

  it('active liveness, where required: a passed challenge of the same person right before the selfie; skipped → review', () => {
    const challenge = { id: 'lch_1', passed: true, failure: null, steps: ['left', 'right', 'straight'] as const, issued_at: '', completed_at: '', frames: [] };
    const al = (over: object) => ev({ activeLiveness: { required: true, challenge: { ...challenge, steps: [...challenge.steps] }, selfieSimilarity: 0.97, selfieAfterChallengeMs: 5_000, ...over } });
    expect(decide(al({}), now).outcome).toBe('approve');
    expect(decide(al({ challenge: null }), now)).toMatchObject({ outcome: 'resubmit', reason: 'liveness_failed' });
    expect(decide(al({ challenge: { ...challenge, steps: [], passed: false, failure: 'still_image' } }), now)).toMatchObject({ outcome: 'resubmit', reason: 'liveness_failed' });
    expect(decide(al({ selfieSimilarity: 0.8 }), now).checks.signal).toBe('the selfie is not the person of the head-turn challenge');
    expect(decide(al({ selfieAfterChallengeMs: 11 * 60_000 }), now).checks.signal).toBe('the selfie was not taken right after the head-turn challenge');
    // The accessible alternative: what would be approved goes to a person; what is declined stays declined.
    const skipped = al({ challenge: { ...challenge, steps: [], passed: false, skipped: true } });
    expect(decide(skipped, now)).toMatchObject({ outcome: 'review', reason: null });
    expect(decide({ ...skipped, ageThreshold: 99 }, now).outcome).not.toBe('approve');
    // Not required (an API upload): the passive checks only.
    expect(decide(ev({ activeLiveness: { required: false, challenge: null, selfieSimilarity: null, selfieAfterChallengeMs: null } }), now).outcome).toBe('approve');
  });

  it('presentation attack: the moiré score alone declines as fraud', () => {
    expect(decide(ev({ selfie: face({ replay_score: 5, moire_score: 40 }) }), now)).toMatchObject({ outcome: 'decline', reason: 'fraud_detected', checks: { signal: 'screen moiré on the face' } });
    expect(decide(ev({ selfie: face({ replay_score: 5, moire_score: 10 }) }), now).outcome).toBe('approve');
  });
});

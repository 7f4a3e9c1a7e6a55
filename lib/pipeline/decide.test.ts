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
});

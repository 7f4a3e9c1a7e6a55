/**
 * Age / estimation: the selfie's age estimate and the range of true ages it allows (thresholds.ts, AGE_RANGES;
 * lib/domain/thresholds/age-range.ts). `pass` (approve) when the range's lower end is at or above the workspace threshold,
 * `fail` (decline, `age_below_threshold`) when its upper end is below it, `refer` (review: a person decides) when it
 * straddles.
 */
import { AGE_RANGES, ageRange } from '../../thresholds/thresholds';
import { probabilityOver } from '../../thresholds/age-range';
import { estimateAge } from '../../faces/age';
import { decided, type Check } from './types';

/**
 * docs/api.md's estimation result. confidence = the probability that the true age is on the decided side of the
 * threshold (for `refer`, on the side the estimate is), from the calibration set's logistic fit at that threshold.
 */
export function estimationResult(age: number, threshold: number, male?: number | null) {
  const range = ageRange(age, male);
  const decision = range.min >= threshold ? 'pass' : range.max < threshold ? 'fail' : 'refer';
  const p = probabilityOver(AGE_RANGES, age, threshold, male);
  const side = decision === 'pass' ? p : decision === 'fail' ? 1 - p : Math.max(p, 1 - p);
  const confidence = Math.round(side * 1000) / 1000;
  return { decision, threshold, estimated_age: Math.round(age), age_range: range, confidence } as const;
}

export const ageEstimate: Check = {
  name: 'age_estimate',
  run: (ev) => {
    // The estimate from the networks' outputs with the calibration in force (a refit applies to analyses stored
    // before it), or the one stored with the analysis.
    const features = ev.selfie?.age_features;
    const age = (features ? estimateAge(features, ev.selfie?.embedding) : null) ?? ev.selfie?.age ?? null;
    if (age == null) return decided('resubmit', 'selfie_quality', { age: 'not estimated' });
    // The range by the table of the face's read sex (the estimate's own reading, when the table has one per read sex).
    const result = estimationResult(age, ev.ageThreshold, features?.male);
    const outcome = result.decision === 'pass' ? 'approve' : result.decision === 'fail' ? 'decline' : 'review';
    return decided(outcome, outcome === 'decline' ? 'age_below_threshold' : null, { model_age: age }, result);
  },
};

/**
 * Age / estimation: the selfie's age estimate and the range the model's measured error allows (thresholds.ts,
 * AGE_MARGINS). `pass` (approve) when the whole range is at or above the workspace threshold, `fail` (decline,
 * `age_below_threshold`) when all of it is below, `refer` (review: a person decides) when it straddles.
 */
import { ageMargins } from '../thresholds';
import { decided, type Check } from './types';

/** Standard normal CDF (Abramowitz-Stegun 7.1.26). */
function phi(z: number): number {
  const t = 1 / (1 + (0.3275911 * Math.abs(z)) / Math.SQRT2);
  const y = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-(z * z) / 2);
  return z >= 0 ? (1 + y) / 2 : (1 - y) / 2;
}

/**
 * decisions.md's estimation result. The range is [estimate − below, estimate + above], both margins read for the
 * estimate's band. confidence = the probability that the true age is on the decided side of the threshold,
 * taking the margin on that side as two standard deviations of the error.
 */
export function estimationResult(age: number, threshold: number) {
  const m = ageMargins(age);
  const estimated = Math.round(age);
  const min = Math.max(0, Math.floor(age - m.below));
  const max = Math.ceil(age + m.above);
  const decision = min >= threshold ? 'pass' : max < threshold ? 'fail' : 'refer';
  const sigma = (age >= threshold ? m.below : m.above) / 2;
  const confidence = Math.round(phi(Math.abs(age - threshold) / sigma) * 1000) / 1000;
  return { decision, threshold, estimated_age: estimated, age_range: { min, max }, confidence } as const;
}

export const ageEstimate: Check = {
  name: 'age_estimate',
  run: (ev) => {
    const age = ev.selfie?.age ?? null;
    if (age == null) return decided('resubmit', 'selfie_quality', { age: 'not estimated' });
    const result = estimationResult(age, ev.ageThreshold);
    const outcome = result.decision === 'pass' ? 'approve' : result.decision === 'fail' ? 'decline' : 'review';
    return decided(outcome, outcome === 'decline' ? 'age_below_threshold' : null, { model_age: age }, result);
  },
};

/**
 * The age range around an estimate, read from the fitted table (lib/domain/thresholds/age-ranges.json, fitted by
 * npm run fit:age; evaluation/age-fit.ts says how). Each end is chosen for the decision it makes:
 *  - the lower end is the highest threshold T of the table whose cut the estimate reaches: at most `alpha` of the
 *    calibration set's people under T were estimated that high, so passing at T (lower end >= T) lets through at
 *    most that share of the people under it;
 *  - the upper end is one under the lowest threshold T whose upper cut the estimate falls short of: at most `beta`
 *    of the people aged T or over were estimated that low, so failing at T (upper end < T) turns away at most that
 *    share of them.
 * A threshold between two of the table's is decided with the next one up for a pass and the next one down for a fail
 * (the safe side). The range always contains the rounded estimate (widened to it if needed, which only refers more).
 */

export type AgeRanges = {
  fitted_on: string;
  n: number;
  alpha: number;
  beta: number;
  /** years added to the lower cuts (and taken from the upper ones unless upper_margin says otherwise) */
  margin: number;
  /** years taken from the upper cuts */
  upper_margin?: number;
  /** whether each cut was also fitted for every sex and group label of the set, the safest kept (evaluation/age-fit.ts, byGroup) */
  by_group?: boolean;
  /** the parametric fit of the youngest people's estimates the lower cuts of thresholds too young for empirical ones come from */
  lower_model?: { under: number; n: number; intercept: number; slope: number; sd: number } | null;
  /** the parametric fit of the oldest people's estimates the upper cuts of thresholds too old for empirical ones come from */
  upper_model?: { from: number; n: number; intercept: number; slope: number; sd: number } | null;
  /** [threshold, cut]: pass at the threshold when the estimate is at or over the cut */
  lower: [number, number][];
  /** [threshold, cut]: fail at the threshold when the estimate is under the cut */
  upper: [number, number][];
  /** [threshold, a, b]: P(true age >= threshold) = 1 / (1 + exp(−(a + b · estimate))) on the calibration set */
  confidence: [number, number, number][];
};

/** The range's ends where the table says nothing: no one is certified older than 0 or younger than 100. */
export const RANGE_FLOOR = 0;
export const RANGE_CAP = 100;

export function ageRangeOf(table: AgeRanges, estimate: number): { min: number; max: number } {
  let min = RANGE_FLOOR;
  for (const [t, cut] of table.lower) if (estimate >= cut) min = Math.max(min, t);
  let max = RANGE_CAP;
  for (const [t, cut] of table.upper) {
    if (estimate < cut) {
      max = t - 1;
      break;
    }
  }
  const e = Math.round(estimate);
  return { min: Math.min(min, e), max: Math.max(max, e) };
}

/**
 * The probability that the true age is at or over `threshold` for this estimate, from the logistic fit of the
 * nearest threshold of the table (on the calibration set's mix of ages, which is dense at 10-25).
 */
export function probabilityOver(table: AgeRanges, estimate: number, threshold: number): number {
  if (table.confidence.length === 0) return estimate >= threshold ? 1 : 0;
  let best = table.confidence[0];
  for (const row of table.confidence) if (Math.abs(row[0] - threshold) < Math.abs(best[0] - threshold)) best = row;
  // The fit of a nearby threshold, moved by the distance to it (the logistic's location shifts with the threshold).
  const [t, a, b] = best;
  return 1 / (1 + Math.exp(-(a + b * (estimate - (threshold - t)))));
}

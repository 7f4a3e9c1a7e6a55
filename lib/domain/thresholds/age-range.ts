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
  /**
   * Cuts fitted apart for the faces the estimate itself reads as a woman and as a man (faceres-deep's `male` below or
   * at/over 0.5; never a label anyone gave): each table's lower cuts hold `alpha` for its own faces, so the share of
   * minors passed holds for each, and neither pays for the other's harder cases (docs/accuracy.md); the upper cuts
   * are the shared ones (too few old faces are read as women for their own). A face with a reading is judged by its
   * table alone; one without, by both, on the safe side of each end. Absent: one table for everyone (the fields
   * above).
   */
  by_read_sex?: { female: RangeCuts; male: RangeCuts } | null;
};

/** One table's cuts (AgeRanges without its settings). */
export type RangeCuts = Pick<AgeRanges, 'n' | 'lower_model' | 'upper_model' | 'lower' | 'upper' | 'confidence'>;

/** The table a face is judged by: its read sex's, when the table has them and the face has a reading. */
export function cutsFor(table: AgeRanges, male?: number | null): RangeCuts[] {
  const by = table.by_read_sex;
  if (!by) return [table];
  if (typeof male === 'number' && Number.isFinite(male)) return [male >= 0.5 ? by.male : by.female];
  return [by.female, by.male];
}

/** The range's ends where the table says nothing: no one is certified older than 0 or younger than 100. */
export const RANGE_FLOOR = 0;
export const RANGE_CAP = 100;

export function ageRangeOf(table: AgeRanges, estimate: number, male?: number | null): { min: number; max: number } {
  const ranges = cutsFor(table, male).map((t) => rangeOfCuts(t, estimate));
  // Without a reading, each end on its safe side: the lower end of the stricter table, the upper of the looser.
  return { min: Math.min(...ranges.map((r) => r.min)), max: Math.max(...ranges.map((r) => r.max)) };
}

function rangeOfCuts(table: RangeCuts, estimate: number): { min: number; max: number } {
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
export function probabilityOver(table: AgeRanges, estimate: number, threshold: number, male?: number | null): number {
  const ps = cutsFor(table, male).map((t) => probabilityOverOf(t, estimate, threshold));
  // Without a reading, the probability of the less sure table (nearer one half).
  return ps.reduce((a, b) => (Math.abs(b - 0.5) < Math.abs(a - 0.5) ? b : a));
}

function probabilityOverOf(table: RangeCuts, estimate: number, threshold: number): number {
  if (table.confidence.length === 0) return estimate >= threshold ? 1 : 0;
  let best = table.confidence[0];
  for (const row of table.confidence) if (Math.abs(row[0] - threshold) < Math.abs(best[0] - threshold)) best = row;
  // The fit of a nearby threshold, moved by the distance to it (the logistic's location shifts with the threshold).
  const [t, a, b] = best;
  return 1 / (1 + Math.exp(-(a + b * (estimate - (threshold - t)))));
}

/**
 * Fitting the age estimate and its ranges on an age-labelled set (npm run fit:age; docs/accuracy.md says how the
 * committed ones were fitted and what they do):
 *
 *  1. the calibration (lib/domain/faces/age.ts): ridge regression of the true age (or its logarithm) on the
 *     networks' estimates and, where the model has it, the face description (inputs standardized, the penalty per
 *     face `ridge`; the fitted weights are then written for the raw inputs);
 *  2. cross-validated estimates: each face estimated by a calibration fitted without it (seeded folds);
 *  3. the ranges, from those estimates, for the decision each end makes (lib/domain/thresholds/age-ranges.json):
 *     - lower end: for each threshold T, the estimate cut c_T at or over which at most `alpha` of the people under
 *       T are estimated (a split-conformal quantile, so a new person under T clears it with probability at most
 *       alpha), plus `margin` years; cuts made non-decreasing in T. lower(e) = max{T : e >= c_T}.
 *     - upper end: for each T, the cut d_T under which at most `beta` of the people aged T or over are estimated,
 *       less `upperMargin` (default `margin`); where too few people are that old, the `beta` quantile of a normal
 *       fit of the estimates of people aged exactly T (mean linear in age, pooled spread, fitted on the oldest people: `upperPoolFrom`);
 *       non-decreasing in T. upper(e) = min{T : e < d_T} − 1.
 *     - and likewise for the lower cuts of thresholds with too few people under them: the 1 − alpha quantile of a
 *       normal fit of the estimates of people aged T − 1, fitted on the young (`lowerPoolUnder`).
 *     So a range's lower end clears a threshold for at most `alpha` of the people under it, and its upper end falls
 *     under a threshold for at most `beta` of the people at or over it, at every threshold of the table.
 *  4. confidence: per threshold, a logistic fit of P(age >= T) on the estimate.
 *
 * Everything here is pure (numbers in, numbers out) and unit-tested on made-up data.
 */
import { ageInputs, rawAge, sexInput, type AgeCalibration, type AgeFeatures } from '../lib/domain/faces/age';
import { ageRangeOf, type AgeRanges, type RangeCuts } from '../lib/domain/thresholds/age-range';
import { clopperPearsonUpper, rate, seeded } from './stats';

/** A face of the set the fit learns from: its true age, the networks' readings, the description, and the set's own labels (sex, group; the fit's weights and the ranges' per-group cuts use them, the estimate never does). */
export type Labelled = {
  truth: number;
  features: AgeFeatures;
  description?: number[] | null;
  sex?: string | null;
  group?: string | null;
};

/** What a calibration is fitted from: the groups of network views, and whether the face description and the log scale are used. */
export type AgeModelSpec = {
  groups: AgeCalibration['groups'];
  description?: boolean;
  scale?: 'years' | 'log';
  ridge?: number;
  /** the estimate's own reading of sex as an input (AgeCalibration.sex) */
  sex?: boolean;
  /** weight the faces so that every (sex, group) cell of the set's labels weighs alike (balanceWeights) */
  balance?: boolean;
};
/** The committed model's shape, with the penalty chosen by nested cross-validation on calib (docs/accuracy.md). */
export const specOf = (c: AgeCalibration): AgeModelSpec => ({
  groups: c.groups,
  description: !!c.description,
  scale: c.scale ?? 'years',
  ridge: c.ridge ?? 1e-6,
  sex: !!c.sex,
  balance: !!c.balanced,
});
const asSpec = (g: AgeModelSpec | AgeCalibration['groups']): AgeModelSpec => (Array.isArray(g) ? { groups: g } : g);
export type FittedCalibration = Pick<
  AgeCalibration,
  | 'groups'
  | 'intercept'
  | 'weights'
  | 'scale'
  | 'description'
  | 'ridge'
  | 'sex'
  | 'input_bounds'
  | 'output_bounds'
  | 'balanced'
>;

/**
 * Weights that make every cell of the set's labels (each sex × group combination present) weigh alike, and the
 * faces without labels as much as one cell: weight = n / (cells · faces of its cell), so the weights sum to n. A
 * set without labels gets weight 1 everywhere.
 */
export function balanceWeights(points: readonly Pick<Labelled, 'sex' | 'group'>[]): number[] {
  const cell = (p: Pick<Labelled, 'sex' | 'group'>) => `${p.sex ?? ''}|${p.group ?? ''}`;
  const counts = new Map<string, number>();
  for (const p of points) counts.set(cell(p), (counts.get(cell(p)) ?? 0) + 1);
  return points.map((p) => points.length / (counts.size * counts.get(cell(p))!));
}

/** Least squares (with a tiny ridge, for collinear views) of y on [1, x]: the coefficients, intercept first. */
export function leastSquares(
  xs: readonly number[][],
  ys: readonly number[],
  ridge = 1e-6,
  weights?: readonly number[],
): number[] {
  const k = xs[0].length + 1;
  const A = Array.from({ length: k }, () => new Array<number>(k + 1).fill(0));
  xs.forEach((x, n) => {
    const row = [1, ...x];
    const w = weights ? weights[n] : 1;
    for (let i = 0; i < k; i++) {
      for (let j = 0; j < k; j++) A[i][j] += w * row[i] * row[j];
      A[i][k] += w * row[i] * ys[n];
    }
  });
  const total = weights ? weights.reduce((a, b) => a + b, 0) : xs.length;
  for (let i = 1; i < k; i++) A[i][i] += ridge * total;
  for (let c = 0; c < k; c++) {
    let p = c;
    for (let r = c + 1; r < k; r++) if (Math.abs(A[r][c]) > Math.abs(A[p][c])) p = r;
    [A[c], A[p]] = [A[p], A[c]];
    for (let r = 0; r < k; r++) {
      if (r === c) continue;
      const f = A[r][c] / A[c][c];
      for (let j = c; j <= k; j++) A[r][j] -= f * A[c][j];
    }
  }
  return A.map((row, i) => row[k] / row[i]);
}

/** The calibration's inputs of each face, a missing group filled with the mean of the others (as estimateAge does). */
function design(points: readonly Labelled[], c: Pick<AgeCalibration, 'groups'>): number[][] {
  return points.map((p) => {
    const x = ageInputs(p.features, c as AgeCalibration);
    const present = x.filter((v): v is number => v !== null);
    const fill = present.length ? present.reduce((a, b) => a + b, 0) / present.length : 0;
    return x.map((v) => v ?? fill);
  });
}

/** Faces with at least one measured group (the others have no estimate). */
export const measurable = (points: readonly Labelled[], groups: AgeCalibration['groups']) =>
  points.filter((p) => ageInputs(p.features, { groups } as AgeCalibration).some((v) => v !== null));

/**
 * The calibration of `spec` fitted on `points`: with the description, each face needs one of the same length as the
 * first face's (a face without one is fitted as the mean face). The inputs are standardized for the penalty, and the
 * weights unfolded back onto the raw inputs (the description's centred on its mean, so a missing one adds 0).
 */
export function fitCalibration(
  points: readonly Labelled[],
  groupsOrSpec: AgeCalibration['groups'] | AgeModelSpec,
): FittedCalibration {
  const spec = asSpec(groupsOrSpec);
  const { groups } = spec;
  const scale = spec.scale ?? 'years';
  const ridge = spec.ridge ?? 1e-6;
  const dim = spec.description ? (points.find((p) => p.description?.length)?.description?.length ?? 0) : 0;
  const nets = design(points, { groups });
  const descMean = new Array<number>(dim).fill(0);
  const withDesc = points.filter((p) => p.description?.length === dim);
  for (const p of withDesc) for (let j = 0; j < dim; j++) descMean[j] += p.description![j] / withDesc.length;
  const sexCols = (p: Labelled, n: number) =>
    spec.sex ? [sexInput(p.features), sexInput(p.features) * nets[n][0]] : [];
  const rows = points.map((p, n) => [
    ...nets[n],
    ...(p.description?.length === dim ? p.description.map((v, j) => v - descMean[j]) : descMean.map(() => 0)),
    ...sexCols(p, n),
  ]);
  const k = groups.length + dim + (spec.sex ? 2 : 0);
  const mu = new Array<number>(k).fill(0);
  const sd = new Array<number>(k).fill(0);
  for (const r of rows) for (let j = 0; j < k; j++) mu[j] += r[j] / rows.length;
  for (const r of rows) for (let j = 0; j < k; j++) sd[j] += (r[j] - mu[j]) ** 2 / rows.length;
  for (let j = 0; j < k; j++) sd[j] = Math.sqrt(sd[j]) || 1;
  const w = leastSquares(
    rows.map((r) => r.map((v, j) => (v - mu[j]) / sd[j])),
    points.map((p) => (scale === 'log' ? Math.log(Math.max(1, p.truth)) : p.truth)),
    ridge,
    spec.balance ? balanceWeights(points) : undefined,
  );
  const raw = w.slice(1).map((v, j) => v / sd[j]);
  const intercept = w[0] - raw.reduce((s, v, j) => s + v * mu[j], 0);
  const dw = raw.slice(groups.length, groups.length + dim);
  // Where the fit saw faces: each input's range, and the description term's, on the set it was fitted on.
  const input_bounds = groups.map(
    (_, i) => [Math.min(...nets.map((x) => x[i])), Math.max(...nets.map((x) => x[i]))] as [number, number],
  );
  const terms = rows.map((r) => dw.reduce((s, v, j) => s + v * r[groups.length + j], 0));
  const fitted: FittedCalibration = {
    groups,
    intercept,
    weights: raw.slice(0, groups.length),
    scale,
    description: dim ? { weights: dw, mean: descMean, bounds: [Math.min(...terms), Math.max(...terms)] } : null,
    sex: spec.sex ? { weights: [raw[groups.length + dim], raw[groups.length + dim + 1]] } : null,
    input_bounds,
    output_bounds: null,
    ridge,
    balanced: !!spec.balance,
  };
  // …and the estimates it gives those faces, which bound every estimate it will make.
  const own = applyCalibration(fitted, points);
  fitted.output_bounds = [Math.min(...own), Math.max(...own)];
  return fitted;
}

export const applyCalibration = (c: FittedCalibration, points: readonly Labelled[]) =>
  points.map((p) => rawAge(p.features, p.description, c) ?? 1);

/** Fold of each point (0..k−1), seeded, balanced. */
export function folds(n: number, k: number, seed: number): number[] {
  const rnd = seeded(seed);
  const order = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  const out = new Array<number>(n);
  order.forEach((idx, r) => (out[idx] = r % k));
  return out;
}

/** Each point's estimate from a calibration fitted on the other folds. */
export function crossValidatedEstimates(
  points: readonly Labelled[],
  groups: AgeCalibration['groups'] | AgeModelSpec,
  k = 5,
  seed = 7,
): number[] {
  const f = folds(points.length, k, seed);
  const out = new Array<number>(points.length);
  for (let fold = 0; fold < k; fold++) {
    const c = fitCalibration(
      points.filter((_, i) => f[i] !== fold),
      groups,
    );
    const test = points.map((p, i) => ({ p, i })).filter(({ i }) => f[i] === fold);
    applyCalibration(
      c,
      test.map((t) => t.p),
    ).forEach((e, j) => (out[test[j].i] = e));
  }
  return out;
}

export type RangeOptions = {
  /** share of the people under a threshold whose lower end may clear it */
  alpha: number;
  /** share of the people at or over a threshold whose upper end may fall under it */
  beta: number;
  /** years added to every lower cut (and taken from every upper cut, unless `upperMargin` is set), for sampling error */
  margin: number;
  /**
   * years taken from every upper cut instead of `margin`: failing an adult outright costs more than referring a
   * minor to a person, so the upper end may keep a wider margin than the lower one
   */
  upperMargin?: number;
  /** thresholds the table is fitted at (where the set has enough people on both sides) */
  thresholds: readonly number[];
  /**
   * The youngest people whose estimates the parametric upper cuts are fitted on: where too few people are at or
   * over a threshold for an empirical cut (fewer than 1 / beta − 1), the cut is the beta quantile of a normal
   * distribution of the estimates at exactly that age, its mean linear in the true age and its spread the pooled
   * one, fitted on everyone this old or older. Unset: no parametric cuts.
   */
  upperPoolFrom?: number;
  /**
   * The same for the lower cuts of thresholds too young for an empirical one (fewer than 2 / alpha − 1 people
   * under them): the 1 − alpha quantile of a normal fit of the estimates of people aged one year under the threshold
   * (the oldest of those under it, so the ones estimated highest on average), fitted on everyone younger than this.
   * Unset: no parametric lower cuts.
   */
  lowerPoolUnder?: number;
  /**
   * Fit each empirical cut for every label of the set's `sex` and `group` columns too, and keep the safest: a lower
   * cut at least every label's (each label with at least `minGroup` people under the threshold; for a label with too
   * few for its alpha quantile, its highest estimate), an upper cut at most every label's that has enough people for
   * one. So the share of the people under a threshold who pass it holds in each group, not only over the set.
   */
  byGroup?: boolean;
  /** the fewest people under (or at or over) a threshold a label needs to take part in byGroup's cuts (default 20) */
  minGroup?: number;
  /**
   * Fit the lower cuts apart for the faces the estimate reads as a woman and as a man (`male` under or at/over 0.5,
   * the network's reading, never a label), each with its own alpha (AgeRanges.by_read_sex): the share of minors
   * passed then holds for each read sex, and the cut for one is not set by the other's oldest-looking minors. The
   * upper cuts stay shared.
   * Needs each read sex to have enough people for the cut at 18 (2 / alpha − 1 under it); otherwise one table.
   */
  byReadSex?: boolean;
};
export const DEFAULT_RANGE_OPTIONS: RangeOptions = {
  alpha: 0.01,
  beta: 0.02,
  margin: 1,
  upperMargin: 2,
  thresholds: [
    ...Array.from({ length: 30 - 6 + 1 }, (_, i) => 6 + i),
    32,
    35,
    40,
    45,
    50,
    55,
    60,
    65,
    70,
    75,
    80,
    85,
    90,
    95,
    100,
  ],
  upperPoolFrom: 40,
  lowerPoolUnder: 18,
};

/** The standard normal quantile (Acklam's rational approximation, relative error under 1.2e-9). */
export function normalQuantile(p: number): number {
  const a = [
    -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239,
  ];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [
    -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
    2.938163982698783,
  ];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const lo = 0.02425;
  if (p < lo) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (
      (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
      ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
    );
  }
  if (p > 1 - lo) return -normalQuantile(1 - p);
  const q = p - 0.5;
  const r = q * q;
  return (
    ((((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q) /
    (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
  );
}

/**
 * The estimates of the people `keep` selects (the oldest, or the youngest), as a normal distribution at each true age: mean a + b · age
 * (least squares), spread the residuals' standard deviation. Null with fewer than 10 people.
 */
export function ageModel(
  truth: readonly number[],
  estimates: readonly number[],
  keep: (age: number) => boolean,
): { a: number; b: number; sd: number; n: number } | null {
  const idx = truth.map((_, i) => i).filter((i) => keep(truth[i]));
  if (idx.length < 10) return null;
  const [a, b] = leastSquares(
    idx.map((i) => [truth[i]]),
    idx.map((i) => estimates[i]),
    0,
  );
  const sd = Math.sqrt(idx.reduce((s, i) => s + (estimates[i] - a - b * truth[i]) ** 2, 0) / (idx.length - 2));
  return { a, b, sd, n: idx.length };
}

const round2 = (x: number) => Math.round(x * 100) / 100;

/** Logistic regression of 1[y] on [1, x] by Newton's method; a small ridge keeps a separable set finite. */
export function logistic(
  xs: readonly number[],
  ys: readonly boolean[],
  iterations = 50,
  ridge = 1e-4,
): [number, number] {
  let a = 0;
  let b = 0;
  const mx = xs.reduce((s, v) => s + v, 0) / xs.length;
  for (let it = 0; it < iterations; it++) {
    let g0 = 0;
    let g1 = 0;
    let h00 = ridge;
    let h01 = 0;
    let h11 = ridge;
    xs.forEach((x0, i) => {
      const x = x0 - mx;
      const p = 1 / (1 + Math.exp(-(a + b * x)));
      const r = (ys[i] ? 1 : 0) - p;
      const w = Math.max(p * (1 - p), 1e-9);
      g0 += r;
      g1 += r * x;
      h00 += w;
      h01 += w * x;
      h11 += w * x * x;
    });
    g0 -= ridge * a;
    g1 -= ridge * b;
    const det = h00 * h11 - h01 * h01;
    const da = (h11 * g0 - h01 * g1) / det;
    const db = (h00 * g1 - h01 * g0) / det;
    a += da;
    b += db;
    if (Math.abs(da) + Math.abs(db) < 1e-9) break;
  }
  return [a - b * mx, b];
}

/**
 * The range table from cross-validated estimates and true ages. A threshold gets a lower cut only where there
 * are enough people under it for `alpha` (at least 2 / alpha − 1: the cut is never the highest of them), an upper
 * cut only where there are enough at or over it for `beta` (1 / beta − 1); a threshold without one is decided with
 * the next one up (pass) or down (fail).
 */
export function fitRanges(
  truth: readonly number[],
  estimates: readonly number[],
  o: RangeOptions = DEFAULT_RANGE_OPTIONS,
  fittedOn = '',
  labels?: readonly Pick<Labelled, 'sex' | 'group'>[],
  /** each face's read sex (faceres-deep's `male`, 0..1; null: unread), for byReadSex */
  males?: readonly (number | null | undefined)[],
): AgeRanges {
  if (o.byReadSex && males) {
    const side = (m: number | null | undefined) =>
      typeof m === 'number' && Number.isFinite(m) ? (m >= 0.5 ? 'male' : 'female') : null;
    const pick = (s: 'female' | 'male') => truth.map((_, i) => i).filter((i) => side(males[i]) === s);
    const idx = { female: pick('female'), male: pick('male') };
    const enough = (ix: number[]) => ix.filter((i) => truth[i] < 18).length >= Math.ceil(2 / o.alpha - 1);
    if (enough(idx.female) && enough(idx.male)) {
      const shared = fitRanges(truth, estimates, { ...o, byReadSex: false }, fittedOn, labels);
      // The lower cuts (passing) and the confidence apart; the upper cuts (failing) stay the shared table's: the
      // network reads many older women as men, so too few old faces are read as women for upper cuts of their own.
      const cuts = (ix: number[]): RangeCuts => {
        const t = fitRanges(
          ix.map((i) => truth[i]),
          ix.map((i) => estimates[i]),
          { ...o, byReadSex: false },
          '',
          labels && ix.map((i) => labels[i]),
        );
        return {
          n: t.n,
          lower_model: t.lower_model,
          upper_model: shared.upper_model,
          lower: t.lower,
          upper: shared.upper,
          confidence: t.confidence,
        };
      };
      return { ...shared, by_read_sex: { female: cuts(idx.female), male: cuts(idx.male) } };
    }
  }
  // The labels' index sets, for byGroup's cuts.
  const labelSets: number[][] = [];
  if (o.byGroup && labels) {
    for (const column of ['sex', 'group'] as const) {
      const values = [...new Set(labels.map((l) => l[column]).filter((v): v is string => !!v))];
      for (const v of values) labelSets.push(labels.map((l, i) => (l[column] === v ? i : -1)).filter((i) => i >= 0));
    }
  }
  const minGroup = o.minGroup ?? 20;
  const lower: [number, number][] = [];
  const upper: [number, number][] = [];
  const confidence: [number, number, number][] = [];
  const old = o.upperPoolFrom === undefined ? null : ageModel(truth, estimates, (a) => a >= o.upperPoolFrom!);
  const young = o.lowerPoolUnder === undefined ? null : ageModel(truth, estimates, (a) => a < o.lowerPoolUnder!);
  const zBeta = normalQuantile(o.beta);
  const zAlpha = normalQuantile(1 - o.alpha);
  const upperMargin = o.upperMargin ?? o.margin;
  for (const t of o.thresholds) {
    const under = estimates.filter((_, i) => truth[i] < t).sort((a, b) => a - b);
    const over = estimates.filter((_, i) => truth[i] >= t).sort((a, b) => a - b);
    // Split conformal: a new person under t is estimated above the r-th smallest of n with probability ≤ (n+1−r)/(n+1).
    // A cut is fitted only where the set has enough people for it not to be its most extreme one (r < n): a
    // threshold with fewer would rest on one face, and a single outlier there would, through the monotone step
    // below, raise the cut of every threshold above it.
    const r = Math.ceil((under.length + 1) * (1 - o.alpha));
    if (r < under.length && over.length > 0) {
      let cut = under[r - 1];
      for (const idx of labelSets) {
        const u = idx
          .filter((i) => truth[i] < t)
          .map((i) => estimates[i])
          .sort((a, b) => a - b);
        if (u.length < minGroup) continue;
        cut = Math.max(cut, u[Math.min(u.length, Math.ceil((u.length + 1) * (1 - o.alpha))) - 1]);
      }
      lower.push([t, round2(cut + o.margin)]);
    }
    // Too few people this young for an empirical cut: the parametric one, at the age of the oldest people under t.
    else if (r >= under.length && over.length > 0 && young && t - 1 < o.lowerPoolUnder!)
      lower.push([t, round2(young.a + young.b * (t - 1) + zAlpha * young.sd + o.margin)]);
    // …and a new person at or over t below the k-th smallest with probability ≤ k/(n+1). Here k = 1 is allowed: an
    // outlier lowers the cuts under it, which only fails fewer people.
    const k = Math.floor(o.beta * (over.length + 1));
    if (k >= 1 && under.length > 0) {
      let cut = over[k - 1];
      for (const idx of labelSets) {
        const v = idx
          .filter((i) => truth[i] >= t)
          .map((i) => estimates[i])
          .sort((a, b) => a - b);
        const kg = Math.floor(o.beta * (v.length + 1));
        if (v.length >= minGroup && kg >= 1) cut = Math.min(cut, v[kg - 1]);
      }
      upper.push([t, round2(cut - upperMargin)]);
    }
    // Too few people this old for an empirical cut: the parametric one (the beta quantile of the estimates of people
    // aged exactly t; older people are estimated higher on average, so fewer of them fall under it).
    else if (k < 1 && under.length > 0 && old)
      upper.push([t, round2(old.a + old.b * t + zBeta * old.sd - upperMargin)]);
    if (under.length >= 20 && over.length >= 20) {
      const [a, b] = logistic(
        estimates as number[],
        truth.map((y) => y >= t),
      );
      confidence.push([t, Math.round(a * 1e4) / 1e4, Math.round(b * 1e4) / 1e4]);
    }
  }
  // Non-decreasing in the threshold, always towards the safe side: a lower cut never below one of a lower
  // threshold, an upper cut never above one of a higher threshold.
  for (let i = 1; i < lower.length; i++) lower[i][1] = Math.max(lower[i][1], lower[i - 1][1]);
  for (let i = upper.length - 2; i >= 0; i--) upper[i][1] = Math.min(upper[i][1], upper[i + 1][1]);
  const model = (m: typeof old) =>
    m && { n: m.n, intercept: round2(m.a), slope: Math.round(m.b * 1e4) / 1e4, sd: round2(m.sd) };
  const lower_model = young && { under: o.lowerPoolUnder!, ...model(young)! };
  const upper_model = old && { from: o.upperPoolFrom!, ...model(old)! };
  return {
    fitted_on: fittedOn,
    n: truth.length,
    alpha: o.alpha,
    beta: o.beta,
    margin: o.margin,
    upper_margin: upperMargin,
    ...(o.byGroup ? { by_group: labelSets.length > 0 } : {}),
    lower_model,
    upper_model,
    lower,
    upper,
    confidence,
  };
}

/** One face's out-of-sample estimate and range. */
export type Judged = { truth: number; estimate: number; min: number; max: number };

/**
 * Nested cross-validation, the honest measure of the whole fit on the set it is fitted on: for each outer fold,
 * the calibration is fitted on the other folds, the range table on their own (inner) cross-validated estimates,
 * and both are applied to the fold's faces, which took no part in either.
 */
export function nestedCrossValidation(
  points: readonly Labelled[],
  groups: AgeCalibration['groups'] | AgeModelSpec,
  o: RangeOptions = DEFAULT_RANGE_OPTIONS,
  k = 5,
  seed = 11,
): Judged[] {
  const f = folds(points.length, k, seed);
  const out = new Array<Judged>(points.length);
  for (let fold = 0; fold < k; fold++) {
    const train = points.filter((_, i) => f[i] !== fold);
    const table = fitRanges(
      train.map((p) => p.truth),
      crossValidatedEstimates(train, groups, k, seed + 1),
      o,
      '',
      train,
      train.map((p) => p.features.male),
    );
    const c = fitCalibration(train, groups);
    const idx = points.map((_, i) => i).filter((i) => f[i] === fold);
    applyCalibration(
      c,
      idx.map((i) => points[i]),
    ).forEach((e, j) => {
      const r = ageRangeOf(table, e, points[idx[j]].features.male);
      out[idx[j]] = { truth: points[idx[j]].truth, estimate: e, min: r.min, max: r.max };
    });
  }
  return out;
}

/** What judged faces give at threshold t: pass when min >= t, fail when max < t, refer otherwise. */
export function decisionsAt(judged: readonly Judged[], t: number) {
  const count = (js: readonly Judged[]) => {
    const pass = js.filter((j) => j.min >= t).length;
    const fail = js.filter((j) => j.max < t).length;
    return {
      n: js.length,
      passed: rate(pass, js.length),
      referred: rate(js.length - pass - fail, js.length),
      failed: rate(fail, js.length),
    };
  };
  const under = count(judged.filter((j) => j.truth < t));
  return {
    threshold: t,
    over: count(judged.filter((j) => j.truth >= t)),
    under: { ...under, passed_upper95: clopperPearsonUpper(under.passed.k, under.n) },
  };
}

export function rangeFigures(judged: readonly Judged[]) {
  const inside = judged.filter((j) => j.truth >= j.min && j.truth <= j.max).length;
  return {
    n: judged.length,
    coverage: rate(inside, judged.length),
    mean_width: judged.length
      ? Math.round((judged.reduce((s, j) => s + j.max - j.min, 0) / judged.length) * 100) / 100
      : null,
  };
}

/** True-age bands the figures are given by. */
export const AGE_BANDS: readonly [number, number][] = [
  [0, 13],
  [13, 18],
  [18, 25],
  [25, 35],
  [35, 50],
  [50, 65],
  [65, 130],
];

export const bandLabel = ([lo, hi]: readonly [number, number]) => (hi >= 130 ? `${lo}+` : `${lo}–${hi - 1}`);

export function errorByBand(truth: readonly number[], estimates: readonly number[]) {
  return AGE_BANDS.map(([lo, hi]) => {
    const e = estimates.map((v, i) => v - truth[i]).filter((_, i) => truth[i] >= lo && truth[i] < hi);
    const m = (xs: number[]) => Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 100) / 100;
    return {
      band: bandLabel([lo, hi]),
      n: e.length,
      mae: e.length ? m(e.map(Math.abs)) : null,
      bias: e.length ? m(e) : null,
    };
  });
}

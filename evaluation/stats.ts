/**
 * The statistics of the evaluation report: confidence intervals for rates (Wilson) and for means (a seeded
 * bootstrap, so a report is reproducible), quantiles, and the threshold search of a score distribution.
 */

export type Interval = { low: number; high: number };
export type Rate = { k: number; n: number; rate: number | null; ci95: Interval | null };

const Z95 = 1.959963984540054;

/** Wilson score interval of k successes in n trials (95 %). */
export function wilson(k: number, n: number): Interval | null {
  if (n === 0) return null;
  const p = k / n;
  const z2 = Z95 * Z95;
  const d = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / d;
  const half = (Z95 * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / d;
  return { low: round(Math.max(0, centre - half), 6), high: round(Math.min(1, centre + half), 6) };
}

export function rate(k: number, n: number): Rate {
  return { k, n, rate: n ? round(k / n, 6) : null, ci95: wilson(k, n) };
}

export const round = (x: number, d = 3) => Math.round(x * 10 ** d) / 10 ** d;

export function mean(xs: readonly number[]): number | null {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null;
}

/** A small deterministic generator (mulberry32): the same report from the same data. */
export function seeded(seed = 20): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** 95 % percentile-bootstrap interval of a statistic over resamples of `items`. */
export function bootstrap<T>(
  items: readonly T[],
  stat: (xs: T[]) => number | null,
  resamples = 1000,
  seed = 20,
): Interval | null {
  if (items.length < 2) return null;
  const rnd = seeded(seed);
  const values: number[] = [];
  for (let r = 0; r < resamples; r++) {
    const sample: T[] = [];
    for (let i = 0; i < items.length; i++) sample.push(items[Math.floor(rnd() * items.length)]);
    const v = stat(sample);
    if (v !== null && Number.isFinite(v)) values.push(v);
  }
  if (values.length === 0) return null;
  return { low: quantile(values, 0.025), high: quantile(values, 0.975) };
}

/** The smallest of some lists of numbers (Infinity for none), without spreading them into arguments: a pair list can hold millions. */
export function lowest(...lists: readonly (readonly number[])[]): number {
  let m = Infinity;
  for (const xs of lists) for (const x of xs) if (x < m) m = x;
  return m;
}

/** Linear-interpolated quantile (type 7). */
export function quantile(xs: readonly number[], p: number): number {
  if (xs.length === 0) return NaN;
  return sortedQuantile(Float64Array.from(xs).sort(), p);
}

/** `quantile` of numbers already sorted ascending (not empty). */
function sortedQuantile(s: ArrayLike<number>, p: number): number {
  const h = (s.length - 1) * p;
  const lo = Math.floor(h);
  return s[lo] + (h - lo) * (s[Math.min(s.length - 1, lo + 1)] - s[lo]);
}

/** The summary of a distribution a report prints. */
export function describe(xs: readonly number[]) {
  if (xs.length === 0) return { n: 0, min: null, p5: null, median: null, p95: null, max: null };
  // Sorted once, and no spread into Math.min: a set of a thousand one-photo people has half a million impostor
  // pairs, past the engine's argument limit.
  const s = Float64Array.from(xs).sort();
  return {
    n: xs.length,
    min: round(s[0]),
    p5: round(sortedQuantile(s, 0.05)),
    median: round(sortedQuantile(s, 0.5)),
    p95: round(sortedQuantile(s, 0.95)),
    max: round(s[s.length - 1]),
  };
}

/**
 * The fewest trials from which a rate of `target` can be claimed: with no error seen in n trials the 95 %
 * upper bound of the rate is about 3 / n (the rule of three), so n must be at least 3 / target.
 */
export const minTrialsFor = (target: number) => Math.ceil(3 / target);

/**
 * Error rates of a similarity score at a threshold: genuine pairs below it are false non-matches, impostor pairs
 * at or above it false matches.
 */
export function matchRates(genuine: readonly number[], impostor: readonly number[], threshold: number) {
  return {
    fnmr: rate(genuine.filter((s) => s < threshold).length, genuine.length),
    fmr: rate(impostor.filter((s) => s >= threshold).length, impostor.length),
  };
}

/** The DET curve: (FMR, FNMR) at every distinct score, thinned to at most `points` points. */
export function detCurve(
  genuine: readonly number[],
  impostor: readonly number[],
  points = 200,
): { threshold: number; fmr: number; fnmr: number }[] {
  if (!genuine.length || !impostor.length) return [];
  const all = [...new Set([...genuine, ...impostor])].sort((a, b) => a - b);
  const step = Math.max(1, Math.floor(all.length / points));
  const g = [...genuine].sort((a, b) => a - b);
  const im = [...impostor].sort((a, b) => a - b);
  const below = (s: number[], t: number) => {
    let lo = 0;
    let hi = s.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (s[mid] < t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const out = [];
  for (let i = 0; i < all.length; i += step) {
    const t = all[i];
    out.push({ threshold: round(t, 4), fmr: (im.length - below(im, t)) / im.length, fnmr: below(g, t) / g.length });
  }
  return out;
}

/**
 * The lowest threshold whose false match rate is at most `target`, or a refusal when there are too few impostor
 * pairs to claim that rate (fewer than minTrialsFor(target)) or too few genuine pairs to say what it costs.
 */
export function thresholdForFmr(
  genuine: readonly number[],
  impostor: readonly number[],
  target: number,
  minGenuine = 30,
) {
  const needed = minTrialsFor(target);
  if (impostor.length < needed || genuine.length < minGenuine) {
    return {
      suggested: null,
      refused: `needs at least ${needed} impostor pairs and ${minGenuine} genuine pairs for a false match rate of ${target}; have ${impostor.length} and ${genuine.length}`,
    } as const;
  }
  const s = [...impostor].sort((a, b) => b - a);
  const allowed = Math.floor(target * s.length); // impostor pairs that may score at or above it
  // Just above the (allowed+1)-th highest impostor score.
  const t = round(s[allowed] + 1e-4, 4);
  return { suggested: t, refused: null, at: matchRates(genuine, impostor, t) } as const;
}

/** P(X ≤ k) for X ~ Binomial(n, p), summed in log space (stable for n in the thousands). */
export function binomialCdf(k: number, n: number, p: number): number {
  if (k < 0) return 0;
  if (k >= n || p <= 0) return 1;
  if (p >= 1) return 0;
  const lp = Math.log(p);
  const lq = Math.log1p(-p);
  let logC = 0; // log C(n, 0)
  let sum = 0;
  for (let i = 0; i <= k; i++) {
    if (i > 0) logC += Math.log(n - i + 1) - Math.log(i);
    sum += Math.exp(logC + i * lp + (n - i) * lq);
  }
  return Math.min(1, sum);
}

/**
 * One-sided Clopper-Pearson (exact binomial) upper confidence bound of a rate, k events in n trials: the p at
 * which seeing k or fewer has probability `alpha` (0.05 for 95 %). For k = 0 it is 1 − alpha^(1/n), about 3 / n
 * (the rule of three). null for n = 0.
 */
export function clopperPearsonUpper(k: number, n: number, alpha = 0.05): number | null {
  if (n === 0) return null;
  if (k >= n) return 1;
  let lo = k / n;
  let hi = 1;
  for (let i = 0; i < 100; i++) {
    const mid = (lo + hi) / 2;
    if (binomialCdf(k, n, mid) > alpha) lo = mid;
    else hi = mid;
  }
  return round(hi, 6);
}

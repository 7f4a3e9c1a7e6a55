/**
 * The age estimate: an ensemble of age networks and the face description, combined by a linear calibration fitted
 * on age-labelled photos (npm run fit:age; the fitted numbers are committed data, age-calibration.json beside this
 * file, so an operator can refit on their own population). The networks: Human's faceres, faceres-deep and GEAR on
 * Human's face crop (lib/domain/faces/age-nets.ts, each on a few views of the crop), and face-api's age net on an
 * aligned crop and its mirror image (lib/domain/faces/face-api-nets.ts). Each network alone compresses ages towards
 * the late twenties; the fit spreads them back. The face description (the 128 numbers the face match compares,
 * lib/domain/faces/describe.ts) carries age too: a ridge term on it, fitted on the logarithm of the age, is what
 * separates minors from young adults best (docs/accuracy.md: adults passed at 18 rose from 31 to about 50 %, with
 * no more minors passed). It costs nothing at run time: the analysis computes the description anyway.
 */
import calibration from './age-calibration.json';
import { AGE_VIEWS, type AgeView } from './age-views';

/** The networks' raw estimates for one face, in years, by view (null: not measured). */
export type AgeFeature = AgeView | 'face_api';
/** `male`: faceres-deep's reading of the face's sex (0..1, its probability of "male"; lib/domain/faces/age-nets.ts). */
export type AgeFeatures = Partial<Record<AgeFeature | 'male', number | null>>;

export type AgeCalibration = {
  fitted_on: string;
  /** the views of lib/domain/faces/age-nets.ts the analysis runs */
  views: AgeView[];
  /** features averaged into one input each: linear = intercept + Σ weights[i] · mean(groups[i]) + the description term */
  groups: AgeFeature[][];
  intercept: number;
  weights: number[];
  /** what the linear sum estimates: the age in years (default), or its natural logarithm (the estimate is exp of it) */
  scale?: 'years' | 'log';
  /**
   * The face description's term, Σ weights[j] · (d[j] − mean[j]); a face without a description adds 0 (the mean
   * face's share). Absent: no description term.
   */
  description?: { weights: number[]; mean: number[]; bounds?: [number, number] } | null;
  /**
   * The estimate's own reading of the face's sex (faceres-deep's `male`, 0..1; never a label anyone gave) as an
   * input: Σ weights · [m, m · input₀] with m = male − 0.5 (an unread face is neutral, m = 0) and input₀ the first
   * group's mean, so the fit can correct an age read differently on faces read as women or men. Absent: not used.
   */
  sex?: { weights: [number, number] } | null;
  /**
   * The range of each group's input on the faces the calibration was fitted on, [min, max]: an input outside it is
   * clamped to it, as the description term is to `description.bounds`. A fit is linear only where it saw faces;
   * without bounds a photo unlike any of them (an old black-and-white portrait) extrapolates, on the log scale
   * exponentially, to the clamp.
   */
  input_bounds?: [number, number][] | null;
  /**
   * The lowest and highest estimate (years) the calibration gave the faces it was fitted on: an estimate is clamped
   * to them, so a face unlike any of the set cannot be read older (or younger) than anyone in it was, and never
   * reaches the 1..100 clamp from extrapolation.
   */
  output_bounds?: [number, number] | null;
  /** the ridge penalty the fit used (on standardized inputs, per face) */
  ridge?: number;
  /** whether the fit weighted the set's sex and group labels alike (npm run fit:age --balance; docs/accuracy.md) */
  balanced?: boolean;
  /** cross-validated mean absolute error where it was fitted */
  cv_mae: number | null;
};

export const AGE_CALIBRATION = calibration as AgeCalibration;
for (const v of AGE_CALIBRATION.views)
  if (!(v in AGE_VIEWS)) throw new Error(`age-calibration.json: unknown view ${v}`);

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** The inputs of the calibration for one face: each group's mean of its measured views (null where none was). */
export function ageInputs(f: AgeFeatures, c: AgeCalibration = AGE_CALIBRATION): (number | null)[] {
  return c.groups.map((g) => {
    const xs = g.map((k) => f[k]).filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
    return xs.length ? mean(xs) : null;
  });
}

type Model = Pick<
  AgeCalibration,
  'groups' | 'intercept' | 'weights' | 'scale' | 'description' | 'sex' | 'input_bounds' | 'output_bounds'
>;

const clamp = (x: number, b: readonly [number, number] | null | undefined) =>
  b ? Math.min(b[1], Math.max(b[0], x)) : x;

/** The sex-reading term's input m = male − 0.5, 0 (neutral) when the face has no reading. */
export const sexInput = (f: AgeFeatures) =>
  typeof f.male === 'number' && Number.isFinite(f.male) ? Math.min(1, Math.max(0, f.male)) - 0.5 : 0;

/**
 * The calibrated estimate in years, clamped to 1..100 but not rounded, or null when no network measured the face. A
 * group none of whose views was measured (a face without a full mesh has no face-api estimate) takes the mean of the
 * others; a face without a description (or one of another length) takes the mean face's.
 */
export function rawAge(f: AgeFeatures, description: readonly number[] | null | undefined, c: Model): number | null {
  const x = ageInputs(f, c as AgeCalibration);
  const present = x.filter((v): v is number => v !== null);
  if (present.length === 0) return null;
  const fill = mean(present);
  const inputs = x.map((v, i) => clamp(v ?? fill, c.input_bounds?.[i]));
  let linear = c.intercept + inputs.reduce<number>((s, v, i) => s + c.weights[i] * v, 0);
  const d = c.description;
  if (d && description && description.length === d.weights.length) {
    let term = 0;
    for (let j = 0; j < d.weights.length; j++) term += d.weights[j] * (description[j] - d.mean[j]);
    linear += clamp(term, d.bounds);
  }
  if (c.sex) {
    const m = sexInput(f);
    linear += c.sex.weights[0] * m + c.sex.weights[1] * m * inputs[0];
  }
  const age = clamp(c.scale === 'log' ? Math.exp(Math.min(linear, 10)) : linear, c.output_bounds);
  return Math.min(100, Math.max(1, age));
}

/** The calibrated estimate in years (1..100, one decimal), or null when no network measured the face. */
export function estimateAge(
  f: AgeFeatures,
  description: readonly number[] | null | undefined,
  c: AgeCalibration = AGE_CALIBRATION,
): number | null {
  const age = rawAge(f, description, c);
  return age === null ? null : Math.round(age * 10) / 10;
}

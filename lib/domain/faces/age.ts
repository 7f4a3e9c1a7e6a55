/**
 * The age estimate: an ensemble of age networks combined by a linear calibration fitted on age-labelled photos
 * (npm run fit:age; the fitted numbers are committed data, age-calibration.json beside this file, so an operator
 * can refit on their own population). The networks: Human's faceres, faceres-deep and GEAR on Human's face crop
 * (lib/domain/faces/age-nets.ts, each on a few views of the crop), and face-api's age net on an aligned crop and its mirror
 * image (lib/domain/faces/face-api-nets.ts). Each network alone compresses ages towards the late twenties; the fit
 * spreads them back. What it was measured to do: docs/accuracy.md.
 */
import calibration from './age-calibration.json';
import { AGE_VIEWS, type AgeView } from './age-views';

/** The networks' raw estimates for one face, in years, by view (null: not measured). */
export type AgeFeature = AgeView | 'face_api';
export type AgeFeatures = Partial<Record<AgeFeature, number | null>>;

export type AgeCalibration = {
  fitted_on: string;
  /** the views of lib/domain/faces/age-nets.ts the analysis runs */
  views: AgeView[];
  /** features averaged into one input each: age = intercept + Σ weights[i] · mean(groups[i]) */
  groups: AgeFeature[][];
  intercept: number;
  weights: number[];
  /** cross-validated mean absolute error where it was fitted */
  cv_mae: number | null;
};

export const AGE_CALIBRATION = calibration as AgeCalibration;
for (const v of AGE_CALIBRATION.views) if (!(v in AGE_VIEWS)) throw new Error(`age-calibration.json: unknown view ${v}`);

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** The inputs of the calibration for one face: each group's mean of its measured views (null where none was). */
export function ageInputs(f: AgeFeatures, c: AgeCalibration = AGE_CALIBRATION): (number | null)[] {
  return c.groups.map((g) => {
    const xs = g.map((k) => f[k]).filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
    return xs.length ? mean(xs) : null;
  });
}

/**
 * The calibrated estimate in years (1..100, one decimal), or null when no network measured the face. A group none
 * of whose views was measured (a face without a full mesh has no face-api estimate) takes the mean of the others.
 */
export function estimateAge(f: AgeFeatures, c: AgeCalibration = AGE_CALIBRATION): number | null {
  const x = ageInputs(f, c);
  const present = x.filter((v): v is number => v !== null);
  if (present.length === 0) return null;
  const fill = mean(present);
  const age = c.intercept + x.reduce<number>((s, v, i) => s + c.weights[i] * (v ?? fill), 0);
  return Math.round(Math.min(100, Math.max(1, age)) * 10) / 10;
}

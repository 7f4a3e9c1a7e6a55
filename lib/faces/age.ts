/**
 * The age estimate: an ensemble of Human's faceres age and face-api's age net (on an aligned crop and its
 * mirror image), combined by a linear calibration fitted on age-labelled photos (scripts/fit-age.ts; the
 * coefficients and their cross-validated error are in AGE_CALIBRATION). Each network alone compresses ages
 * towards the late twenties; the fit spreads them back.
 */

export type AgeFeatures = { faceres: number | null; face_api: number | null };

/**
 * age = intercept + faceres·w[0] + face_api·w[1] (years), clamped to 1..100. Fitted by least squares on the
 * development set; `cv_mae` is its 5-fold cross-validated mean absolute error there.
 */
export const AGE_CALIBRATION = {
  intercept: -5.3359,
  weights: [0.4481, 0.8889] as [number, number],
  fitted_on: 'development set: 285 age-labelled UTKFace photos aged 5-80 (npm run fit:age)',
  /** 5-fold cross-validated MAE there (raw faceres alone: 9.79) */
  cv_mae: 8.15 as number | null,
};

export function estimateAge(f: AgeFeatures): number | null {
  if (f.faceres == null && f.face_api == null) return null;
  const a = f.faceres ?? f.face_api!;
  const b = f.face_api ?? f.faceres!;
  const c = AGE_CALIBRATION;
  const age = c.intercept + c.weights[0] * a + c.weights[1] * b;
  return Math.round(Math.min(100, Math.max(1, age)) * 10) / 10;
}

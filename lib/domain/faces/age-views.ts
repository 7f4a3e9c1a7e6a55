/**
 * The views of Human's face crop the age networks can read (lib/domain/faces/age-nets.ts runs them), by the name each
 * view's estimate has in an analysis's `age_features`. Plain data, so code that only combines estimates
 * (lib/domain/faces/age.ts) does not pull the loaders in.
 */
type Box = [number, number, number, number];

/** A view of the face crop: a box [top, left, bottom, right] in the crop's unit square, mirrored or not. */
export type View = { net: 'faceres' | 'faceres_deep' | 'gear'; box: Box; mirror: boolean };
const FULL: Box = [0, 0, 1, 1];
const TIGHT: Box = [0.05, 0.05, 0.95, 0.95];
/** GEAR's own framing of the face crop (Human's src/gear/gear.ts: "empirical values"). */
const GEAR_BOX: Box = [0, 0.1, 0.9, 0.9];

/** Every view the analysis can run, by the name its estimate has in the analysis's `age_features`. */
export const AGE_VIEWS = {
  faceres: { net: 'faceres', box: FULL, mirror: false },
  faceres_mirror: { net: 'faceres', box: FULL, mirror: true },
  faceres_deep: { net: 'faceres_deep', box: FULL, mirror: false },
  faceres_deep_mirror: { net: 'faceres_deep', box: FULL, mirror: true },
  faceres_deep_tight: { net: 'faceres_deep', box: TIGHT, mirror: false },
  faceres_deep_tight_mirror: { net: 'faceres_deep', box: TIGHT, mirror: true },
  gear: { net: 'gear', box: GEAR_BOX, mirror: false },
  gear_mirror: { net: 'gear', box: GEAR_BOX, mirror: true },
} as const satisfies Record<string, View>;
export type AgeView = keyof typeof AGE_VIEWS;

/** GEAR's age groups (under 20, 21-25, 26-30, 31-40, 41-50, 51-60, over 60) at the ages Human's gear.ts gives them. */
export const GEAR_AGES = [15, 23, 28, 35.5, 45.5, 55.5, 65];

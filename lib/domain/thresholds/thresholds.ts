/**
 * The decision pipeline's thresholds, each with the measurement behind it. Face and age figures come from
 * npm run evaluate on the development set (docs/evaluation/: 60 people x 4 different photos, 288 age-labelled
 * photos aged 5-80); liveness and replay figures also from npm run calibrate (the packaged photos and simulated
 * attacks). docs/accuracy.md says what they can and cannot tell.
 */
import ageRanges from './age-ranges.json';
import { ageRangeOf, type AgeRanges } from './age-range';

/**
 * Selfie ↔ document portrait: cosine similarity of the face description (lib/domain/faces/describe.ts) at or above this
 * is the same person. Measured on different photos of the same people (360 genuine, 28,320 impostor pairs):
 * FMR 0.074 % (21 pairs), FNMR 1.7 % (6 pairs); against a different photo printed on a synthetic ID card (720
 * genuine, 56,640 impostor pairs) about the same. 0.928 is where FMR reaches 0.1 %; 0.93 leaves a little room.
 */
export const FACE_MATCH_THRESHOLD = 0.93;
/**
 * Default duplicate/blocklist threshold of a workspace (its `duplicate_threshold` setting). A duplicate search
 * compares one face with every account, so its false match rate per pair must be far lower than the face match's:
 * no impostor pair of the 28,320 reached 0.945 (95 % upper bound 0.011 %), at the cost of missing 11 % of
 * genuine pairs.
 */
export const DEFAULT_DUPLICATE_THRESHOLD = 0.945;
/**
 * The same picture sent again (even re-encoded or re-lit): edited copies of one photo measure median 0.967,
 * p95 0.997; the identical bytes give 1.0. A camera never produces the same frame twice.
 */
export const SAME_CAPTURE_SIMILARITY = 0.999;

/** Screen/print pattern (lib/domain/faces/replay.ts): genuine faces max 8.3; screen replays min 235, halftone prints min 138. */
export const REPLAY_SCORE_THRESHOLD = 20;
/**
 * Moiré of a screen whose sub-pixel stripes are not resolved (lib/domain/faces/replay.ts, moireScore). Genuine photos of the
 * development set (525 faces): median 4.5, 95th percentile 9.3, max 13.7 (a patch at the image centre instead of the
 * face: max 23.5); simulated moiré-only screens (npm run make:attack-set, 85): median 41.6, and with the pattern
 * score 70 of 85 stopped (56 by the pattern score alone).
 */
export const MOIRE_SCORE_THRESHOLD = 25;
/** Human's liveness score below this fails liveness: genuine photos measured min 0.18 (median 0.97). */
export const LIVENESS_FLOOR = 0.1;

/**
 * The age ranges: for each threshold of a table, the estimate at or over which a person passes it and the estimate
 * under which a person fails it (lib/domain/thresholds/age-range.ts reads them; npm run fit:age fits them with
 * cross-validation, evaluation/age-fit.ts). Fitted on the calibration set so that at most `alpha` (1 %) of the
 * people under any threshold of the table would pass it and at most `beta` (2 %) of the people at or over it would
 * fail it, with a finite-sample (conformal) correction and a margin; measured on the development set, which it
 * never saw. The figures: docs/accuracy.md.
 */
export const AGE_RANGES = ageRanges as AgeRanges;

/**
 * The range [min, max] of true ages an estimate allows (docs/api.md: pass when min >= threshold, fail when max < it),
 * from the table of the face's read sex (`male`, the estimate's own reading) when the table has one per read sex.
 */
export function ageRange(estimate: number, male?: number | null): { min: number; max: number } {
  return ageRangeOf(AGE_RANGES, estimate, male);
}

/**
 * Active liveness: a turned frame and the frame looking straight must be this similar (the same person). A turned
 * face matches a frontal one less well: the astronaut's synthetic turns (test/helpers/head-turn.ts, ±0.25) against
 * her straight frame 0.95-0.97; two different packaged people (astronaut, Grace Hopper) 0.90, turned 0.85-0.86.
 * Development-set impostor pairs: median 0.84, 95th percentile 0.895. The selfie is held to FACE_MATCH_THRESHOLD
 * against the straight frame.
 */
export const CHALLENGE_POSE_SIMILARITY = 0.91;
/**
 * Active liveness: a frame this similar to a frame sent for another verification is that frame again. The same
 * photo re-encoded (JPEG 80 or 60, 10 packaged faces) measured 0.998-0.9998 but for one face at 0.90 (its landmarks
 * moved); two different photos of one person at most 0.989 (development set).
 */
export const CHALLENGE_REPLAY_SIMILARITY = 0.995;
/** Active liveness: the selfie must follow the passed head-turn challenge within this time (the page takes it right after). */
export const ACTIVE_LIVENESS_SELFIE_WITHIN_MS = 10 * 60_000;

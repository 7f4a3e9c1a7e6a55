/**
 * The decision pipeline's thresholds, each with the measurement behind it (npm run calibrate, over the
 * packaged photos: 17 different people, 2 of known age, and variants derived from them). Small sets:
 * the README says what they can and cannot tell.
 */

/**
 * Selfie ↔ document portrait: cosine similarity at or above this is the same person. Measured: different
 * people max 0.632 (selfie pairs) and 0.635 (selfie vs another's document portrait); the same person's
 * selfie vs their printed portrait min 0.798, median 0.908; vs edited copies 2 of 119 below (lowest 0.33).
 */
export const FACE_MATCH_THRESHOLD = 0.66;
/**
 * Default duplicate/blocklist threshold of a workspace (its `duplicate_threshold` setting): a little above
 * the face-match threshold, since a false duplicate flags someone else's account.
 */
export const DEFAULT_DUPLICATE_THRESHOLD = 0.68;
/**
 * The same picture sent again (even re-encoded or re-lit): edited copies of one photo measure median 0.967,
 * p95 0.997; the identical bytes give 1.0. A camera never produces the same frame twice.
 */
export const SAME_CAPTURE_SIMILARITY = 0.999;

/** Screen/print pattern (lib/faces/replay.mjs): genuine faces max 8.3; screen replays min 235, halftone prints min 138. */
export const REPLAY_SCORE_THRESHOLD = 20;
/** Human's liveness score below this fails liveness: genuine photos measured min 0.18 (median 0.97). */
export const LIVENESS_FLOOR = 0.1;

/**
 * Half-width of the age range around the estimate, in years: the model's measured error on the two
 * photos of known age is −7.8 years on both (and does not move under edits), rounded up with 2 years to spare.
 */
export const AGE_MARGIN_YEARS = 10;

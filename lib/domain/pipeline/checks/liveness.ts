/**
 * Liveness, passive and active. Passive: Human's liveness score over a floor, and not the same picture as
 * another verification's selfie (a camera never takes one frame twice). Active, when the workspace requires it
 * for the hosted page: a passed head-turn challenge, taken shortly before the selfie, of the same person.
 * Any failure asks for a new attempt (`liveness_failed`).
 */
import {
  ACTIVE_LIVENESS_SELFIE_WITHIN_MS,
  FACE_MATCH_THRESHOLD,
  LIVENESS_FLOOR,
  SAME_CAPTURE_SIMILARITY,
} from '../../thresholds/thresholds';
import { decided, next, type Check, type Evidence } from './types';

function active(ev: Evidence): { failed: string | null; review?: boolean; measured: Record<string, unknown> } {
  const a = ev.activeLiveness;
  if (!a?.required)
    return {
      failed: null,
      measured: a?.challenge
        ? { active_liveness: { passed: a.challenge.passed, failure: a.challenge.failure, required: false } }
        : {},
    };
  const c = a.challenge;
  const measured = {
    active_liveness: c
      ? {
          required: true,
          challenge: c.id,
          passed: c.passed,
          failure: c.failure,
          steps: c.steps,
          frames: c.frames,
          selfie_similarity: a.selfieSimilarity,
          selfie_after_challenge_ms: a.selfieAfterChallengeMs,
        }
      : { required: true, challenge: null },
  };
  if (!c) return { failed: 'no head-turn challenge was completed', measured };
  // The accessible alternative: no head turn, a person reviews instead of an automatic approval.
  if (c.skipped) return { failed: null, review: true, measured };
  if (!c.passed) return { failed: `head-turn challenge failed: ${c.failure}`, measured };
  if (a.selfieSimilarity === null || a.selfieSimilarity < FACE_MATCH_THRESHOLD)
    return { failed: 'the selfie is not the person of the head-turn challenge', measured };
  if (
    a.selfieAfterChallengeMs === null ||
    a.selfieAfterChallengeMs < 0 ||
    a.selfieAfterChallengeMs > ACTIVE_LIVENESS_SELFIE_WITHIN_MS
  ) {
    return { failed: 'the selfie was not taken right after the head-turn challenge', measured };
  }
  return { failed: null, measured };
}

export const liveness: Check = {
  name: 'liveness',
  run: (ev) => {
    const s = ev.selfie;
    const measured: Record<string, unknown> = {
      liveness: s?.live ?? null,
      liveness_floor: LIVENESS_FLOOR,
      same_capture_similarity: ev.otherCapture?.similarity ?? null,
    };
    if (s?.live != null && s.live < LIVENESS_FLOOR)
      return decided('resubmit', 'liveness_failed', { ...measured, signal: 'passive liveness score under the floor' });
    if (ev.otherCapture && ev.otherCapture.similarity >= SAME_CAPTURE_SIMILARITY) {
      return decided('resubmit', 'liveness_failed', {
        ...measured,
        signal: 'the same picture as another verification',
      });
    }
    const a = active(ev);
    if (a.failed) return decided('resubmit', 'liveness_failed', { ...measured, ...a.measured, signal: a.failed });
    // An approval later in the order becomes a review (decide.ts): the challenge was skipped.
    return next({
      ...measured,
      ...a.measured,
      ...(a.review ? { review_required: 'head-turn challenge skipped (accessible alternative)' } : {}),
    });
  },
};

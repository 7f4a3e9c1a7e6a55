/**
 * A screen or a print held to the camera: the periodic pattern of a display's pixel grid, moiré or a halftone
 * screen on the face (lib/domain/faces/replay.ts). Declined as fraud.
 */
import { MOIRE_SCORE_THRESHOLD, REPLAY_SCORE_THRESHOLD } from '../../thresholds/thresholds';
import { decided, next, type Check } from './types';

type Scores = { replay_score?: number | null; moire_score?: number | null } | null | undefined;

/** Which pattern gives the face away: a grid or halftone (replay score), or a screen's moiré; null for none. */
export function presentationAttackSignal(f: Scores): string | null {
  if (f?.replay_score != null && f.replay_score >= REPLAY_SCORE_THRESHOLD) return 'screen or print pattern on the face';
  if (f?.moire_score != null && f.moire_score >= MOIRE_SCORE_THRESHOLD) return 'screen moiré on the face';
  return null;
}

export const presentationAttack: Check = {
  name: 'presentation_attack',
  run: (ev) => {
    const measured = {
      replay_score: ev.selfie?.replay_score ?? null,
      replay_threshold: REPLAY_SCORE_THRESHOLD,
      moire_score: ev.selfie?.moire_score ?? null,
      moire_threshold: MOIRE_SCORE_THRESHOLD,
    };
    const signal = presentationAttackSignal(ev.selfie);
    return signal ? decided('decline', 'fraud_detected', { ...measured, signal }) : next(measured);
  },
};

/**
 * Active liveness on the hosted capture page: a short random sequence of head poses, each captured as a frame
 * and re-analysed by the server. These are the types shared by the capture endpoints, the pipeline check and
 * the page.
 */
export const CHALLENGE_STEPS = ['left', 'right', 'straight'] as const;
export type ChallengeStep = (typeof CHALLENGE_STEPS)[number];

/** Why a challenge failed (docs/api.md lists them). */
export type ChallengeFailure =
  | 'expired' // the frames arrived too long after the nonce was issued
  | 'no_face' // a frame without exactly one usable face
  | 'pose_order' // a frame's head pose is not the pose asked for at that step
  | 'still_image' // the frames are the same picture (a photo held to the camera)
  | 'different_person' // the frames do not all show one person
  | 'replayed_frames'; // a frame was already sent in another challenge

export type ChallengeFrame = {
  step: ChallengeStep;
  yaw: number | null;
  face_found: boolean;
  similarity_to_first: number | null;
};

export type ChallengeOutcome = {
  id: string;
  passed: boolean;
  /** the person chose the accessible alternative (no head turn): a reviewer checks the verification instead */
  skipped?: boolean;
  failure: ChallengeFailure | null;
  steps: ChallengeStep[];
  issued_at: string;
  completed_at: string | null;
  frames: ChallengeFrame[];
};

/**
 * Head poses of the active-liveness challenge, read the same way on the page (from the face detector's keypoints)
 * and on the server (from the mesh): the turn is the nose's offset from the eyes' midpoint along the eye line, in
 * eye distances, in the camera's own (not mirrored) image: positive when the nose is to the image's right, which
 * is the person turning to *their* left. No imports: the capture page bundles this file.
 */
import type { ChallengeStep } from '../../db/schema/liveness-challenge';

/** Beyond this the head is turned; within STRAIGHT_MAX it looks straight at the camera. Between: neither. */
export const TURN_MIN = 0.12;
export const STRAIGHT_MAX = 0.08;

export function poseOf(turn: number | null | undefined): ChallengeStep | null {
  if (turn == null || !Number.isFinite(turn)) return null;
  if (turn >= TURN_MIN) return 'left';
  if (turn <= -TURN_MIN) return 'right';
  if (Math.abs(turn) <= STRAIGHT_MAX) return 'straight';
  return null;
}

type Pt = readonly [number, number] | { x: number; y: number };
const xy = (p: Pt): [number, number] =>
  Array.isArray(p) ? [p[0], p[1]] : [(p as { x: number }).x, (p as { y: number }).y];

/** The turn from two eye points and the nose tip (any order of eyes). */
export function turnOf(eyeA: Pt, eyeB: Pt, nose: Pt): number | null {
  let [ax, ay] = xy(eyeA);
  let [bx, by] = xy(eyeB);
  if (bx < ax) [ax, ay, bx, by] = [bx, by, ax, ay];
  const [nx, ny] = xy(nose);
  const dist = Math.hypot(bx - ax, by - ay);
  if (dist === 0) return null;
  const along = (nx - (ax + bx) / 2) * ((bx - ax) / dist) + (ny - (ay + by) / 2) * ((by - ay) / dist);
  return Math.round((along / dist) * 1000) / 1000;
}

'use client';
/**
 * Active liveness before the selfie, where the workspace requires it (docs/api.md, Active liveness): the server
 * issues random poses and a single-use nonce; the page reads the head's turn live from the face detector's
 * keypoints (eyes and nose: lib/domain/media/pose.ts, the server's formula), keeps one frame per pose once it is held,
 * and sends them; the server analyses them itself. A time limit, a retry, and an accessible alternative (no head
 * turn: a person reviews instead). Loaded only where a workspace requires it (its own chunk).
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import Webcam from 'react-webcam';
import { useTranslations } from 'next-intl';
import { advise, call } from './api';
import { loadFaceDetector } from './face-check';
import { SELFIE } from '@/lib/domain/media/thresholds';
import { STRAIGHT_MAX, TURN_MIN, turnOf } from '@/lib/domain/media/pose';
import type { ChallengeStep } from '@/lib/db/schema/liveness-challenge';

type Challenge = { id: string; nonce: string; steps: ChallengeStep[]; expires_at: string };
type Phase = 'intro' | 'running' | 'checking' | 'timeout' | 'failed';

/**
 * The detector's keypoints are the eye centres, closer together than the mesh's outer eye corners the server
 * uses, so the same head turn reads larger here; the page also asks for a clear turn so the server's reading of
 * the frame is past its own threshold.
 */
const PAGE_TURN = TURN_MIN * 1.8;
const PAGE_STRAIGHT = STRAIGHT_MAX;
/** Checks in a row in the asked pose before its frame is kept (steadiness). */
const HOLD = 2;
/** The page gives up before the nonce expires (60 s), leaving time to send. */
const PAGE_LIMIT_MS = 40_000;

/**
 * The frame as the camera gives it, not mirrored (the preview is mirrored for the person; the turn's sign is read in
 * the camera's own image, on the page and on the server alike).
 */
function frameOf(video: HTMLVideoElement): Promise<Blob | null> {
  const canvas = document.createElement('canvas');
  canvas.width = video.videoWidth;
  canvas.height = video.videoHeight;
  canvas.getContext('2d')!.drawImage(video, 0, 0);
  return new Promise((res) => canvas.toBlob(res, 'image/jpeg', 0.92));
}

function pageTurn(points: number[][]): number | null {
  return points.length >= 3
    ? turnOf([points[0][0], points[0][1]], [points[1][0], points[1][1]], [points[2][0], points[2][1]])
    : null;
}
function pageMatches(step: ChallengeStep, turn: number | null) {
  if (turn === null) return false;
  if (step === 'left') return turn >= PAGE_TURN;
  if (step === 'right') return turn <= -PAGE_TURN;
  return Math.abs(turn) <= PAGE_STRAIGHT;
}

export function HeadTurnChallenge(props: { token: string; onDone: () => void }) {
  const { token, onDone } = props;
  const t = useTranslations();
  const [phase, setPhase] = useState<Phase>('intro');
  const [challenge, setChallenge] = useState<Challenge | null>(null);
  const [index, setIndex] = useState(0);
  const [held, setHeld] = useState(0);
  /** the last turn read (data-turn: what the page sees, for tests and debugging) */
  const [turnSeen, setTurnSeen] = useState<number | null>(null);
  /** the server's code for a refused request, shown in the page's language */
  const [error, setError] = useState<string | null>(null);
  const webcam = useRef<Webcam>(null);
  const frames = useRef<Blob[]>([]);

  const start = async () => {
    setError(null);
    frames.current = [];
    setIndex(0);
    setHeld(0);
    const r = await call<Challenge>(token, '/liveness', { method: 'POST' });
    if (!r.ok) return setError(r.code);
    setChallenge(r.data);
    setPhase('running');
  };

  const skip = async () => {
    const r = await call(token, '/liveness', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ skip: true }),
    });
    if (r.ok) onDone();
    else setError(r.code);
  };

  /** Sends the frames once every pose is in; outside the pose loop, whose clean-up must not cancel it. */
  const send = useCallback(
    async (ch: Challenge) => {
      setPhase('checking');
      const form = new FormData();
      form.append('nonce', ch.nonce);
      frames.current.forEach((b, i) => form.append(`frame_${i}`, b, `frame_${i}.jpg`));
      const r = await call<{ passed: boolean; failure: string | null; frames: { turn: number | null }[] }>(
        token,
        `/liveness/${ch.id}`,
        { method: 'POST', body: form },
      );
      if (r.ok && r.data.passed) return onDone();
      if (!r.ok) setError(r.code);
      else console.info('head-turn challenge failed', r.data.failure, JSON.stringify(r.data.frames));
      setPhase('failed');
    },
    [token, onDone],
  );

  // The pose loop: about five checks a second while the challenge runs.
  useEffect(() => {
    if (phase !== 'running' || !challenge) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout>;
    let count = 0;
    let step = 0;
    const deadline = Date.now() + PAGE_LIMIT_MS;
    const tick = async () => {
      if (stopped) return;
      if (Date.now() > deadline) return setPhase('timeout');
      const video = webcam.current?.video;
      if (video && video.readyState >= 2) {
        try {
          const h = await loadFaceDetector();
          const faces = (await h.detect(video)).face.filter((f) => f.score >= SELFIE.minFaceScore);
          const turn = faces.length === 1 ? pageTurn(faces[0].mesh as number[][]) : null;
          if (stopped) return;
          setTurnSeen(turn);
          count = pageMatches(challenge.steps[step], turn) ? count + 1 : 0;
          setHeld(count);
          if (count >= HOLD) {
            const blob = await frameOf(video);
            if (blob) {
              frames.current.push(blob);
              step++;
              count = 0;
              setIndex(step);
              setHeld(0);
              if (step === challenge.steps.length) {
                stopped = true;
                return void send(challenge);
              }
            }
          }
        } catch (e) {
          console.warn('head-turn check failed', e);
        }
      }
      timer = setTimeout(tick, 200);
    };
    void tick();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [phase, challenge, send]);

  const step = challenge?.steps[index];
  return (
    <div className="space-y-4" data-testid="head-turn">
      <h2 className="text-lg font-semibold">{t('challenge.title')}</h2>
      <p>{t('challenge.intro')}</p>
      {error && (
        <p role="alert" className="rounded-md border border-red-300 bg-red-50 p-3 text-red-900">
          {advise(t, { code: error })}
        </p>
      )}
      {(phase === 'running' || phase === 'checking') && (
        <div className="space-y-2">
          <Webcam
            ref={webcam}
            audio={false}
            mirrored
            videoConstraints={{ facingMode: 'user', width: 640, height: 480 }}
            screenshotFormat="image/jpeg"
            className="w-full rounded-lg bg-black"
          />
          <p className="text-sm text-neutral-700">
            {challenge && step && t('challenge.step', { current: index + 1, total: challenge.steps.length })}
          </p>
          <p
            role="status"
            aria-live="assertive"
            data-testid="head-turn-instruction"
            data-step={phase === 'checking' ? 'checking' : step}
            data-turn={turnSeen ?? ''}
            className="text-xl font-semibold"
          >
            {phase === 'checking' ? t('challenge.checking') : step && t(`challenge.turn.${step}`)}
            {phase === 'running' && step && held > 0 && (
              <span className="block text-base font-medium">{t('challenge.hold')}</span>
            )}
          </p>
        </div>
      )}
      {(phase === 'timeout' || phase === 'failed') && (
        <p
          role="alert"
          data-testid="head-turn-result"
          data-result={phase}
          className="rounded-md bg-amber-50 p-3 text-amber-950"
        >
          {phase === 'timeout' ? t('challenge.timeout') : t('challenge.failed')}
        </p>
      )}
      {phase !== 'running' && phase !== 'checking' && (
        <div className="flex flex-wrap gap-3">
          <button type="button" className="btn-primary" onClick={start}>
            {phase === 'intro' ? t('challenge.start') : t('retry')}
          </button>
          <button type="button" className="btn-link" onClick={skip}>
            {t('challenge.skip')}
          </button>
        </div>
      )}
      {phase !== 'running' && phase !== 'checking' && (
        <p className="text-sm text-neutral-600">{t('challenge.skipNote')}</p>
      )}
    </div>
  );
}

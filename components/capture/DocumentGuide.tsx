'use client';
/**
 * The document step's live guide over the rear camera: the outline of the document found, the advice (closer,
 * glare, blur, …), and the photo taken by itself once the document has filled the frame, steady and sharp, for
 * about a second (the capture button remains). Loaded only on the document step (components/capture/PhotoStep.tsx
 * imports it dynamically), so the selfie's JavaScript does not carry it.
 */
import { useEffect, useRef, useState } from 'react';
import { checkDocumentFrame } from './document-guide/frame';
import { GUIDE, quadShift, type DocumentAdvice, type Quad } from './document-guide/find-document';

/** Ready and steady in this many frames in a row (four a second) before the photo is taken by itself. */
export const AUTO_CAPTURE_FRAMES = 4;

type Props = {
  video: () => HTMLVideoElement | null | undefined;
  /** the camera is live and no photo is being checked */
  active: boolean;
  /** may take the photo by itself (not again at once after a photo was refused) */
  armed: boolean;
  onAdvice: (advice: DocumentAdvice) => void;
  onSteady: () => void;
};

export function DocumentGuide(props: Props) {
  const [seen, setSeen] = useState<{ quad: Quad; w: number; h: number; ready: boolean } | null>(null);
  const latest = useRef(props);
  useEffect(() => {
    latest.current = props;
  });

  useEffect(() => {
    if (!props.active) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout>;
    let previous: Quad | null = null;
    let steady = 0;
    const tick = () => {
      const video = latest.current.video();
      if (video && video.readyState >= 2) {
        const r = checkDocumentFrame(video);
        if (r) {
          const moved = r.quad && previous ? quadShift(r.quad, previous, video.videoWidth, video.videoHeight) : 1;
          previous = r.quad;
          steady = r.advice === 'ready' && moved <= GUIDE.maxShift ? steady + 1 : 0;
          setSeen(
            r.quad ? { quad: r.quad, w: video.videoWidth, h: video.videoHeight, ready: r.advice === 'ready' } : null,
          );
          latest.current.onAdvice(r.advice);
          if (steady >= AUTO_CAPTURE_FRAMES && latest.current.armed) {
            stopped = true;
            latest.current.onSteady();
            return;
          }
        }
      }
      if (!stopped) timer = setTimeout(tick, 250);
    };
    tick();
    return () => {
      stopped = true;
      clearTimeout(timer);
      setSeen(null);
    };
  }, [props.active]);

  if (!seen) return null;
  return (
    <svg
      aria-hidden="true"
      viewBox={`0 0 ${seen.w} ${seen.h}`}
      preserveAspectRatio="xMidYMid slice"
      className="pointer-events-none absolute inset-0 size-full"
      data-testid="document-outline"
      data-ready={seen.ready ? 'yes' : 'no'}
    >
      <polygon
        points={seen.quad.map((p) => `${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(' ')}
        className={seen.ready ? 'fill-green-400/20 stroke-green-400' : 'fill-white/10 stroke-amber-300'}
        strokeWidth={4}
        strokeLinejoin="round"
        vectorEffect="non-scaling-stroke"
      />
    </svg>
  );
}

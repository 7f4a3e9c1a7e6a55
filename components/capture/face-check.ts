/**
 * Live guidance in the browser: Human finds the faces in the camera frame (its face-detector build, made by
 * server/build-face-detector.mjs: detector only, tfjs on wasm, models and wasm served from /human/ on this
 * origin); light and sharpness are measured here on a small copy of the face. The capture button enables
 * only when every check passes; the server validates everything again on upload (lib/domain/media), with the
 * thresholds these are taken from.
 */
import type { Human } from '@vladmandic/human';
import { SELFIE } from '@/lib/domain/media/thresholds';
import { laplacianVariance } from '@/lib/domain/media/laplacian';

export type Advice =
  'noFace' | 'multipleFaces' | 'notCentred' | 'tooFar' | 'tooClose' | 'tooDark' | 'tooBright' | 'blurry' | 'ready';
export type FaceCheck = { advice: Advice; faces: number; brightness: number | null; sharpness: number | null };

let human: Promise<Human> | null = null;

/** Loads Human once per page (its JavaScript is a separate chunk, fetched when the camera step opens). */
export function loadFaceDetector(): Promise<Human> {
  human ??= (async () => {
    const { Human } = await import('./face-detector/human-face.generated.js');
    const h = new Human({
      backend: 'wasm',
      wasmPath: '/human/wasm/',
      modelBasePath: '/human/models/',
      debug: false,
      warmup: 'none',
      // Every frame is analysed afresh: no frame-difference cache, no brightness filter (light is judged here).
      cacheSensitivity: 0,
      skipAllowed: false,
      filter: { enabled: false, autoBrightness: false },
      face: {
        enabled: true,
        detector: { rotation: false, maxDetected: 3, minConfidence: SELFIE.minFaceScore, return: false },
        mesh: { enabled: false },
        iris: { enabled: false },
        description: { enabled: false },
        emotion: { enabled: false },
        antispoof: { enabled: false },
        liveness: { enabled: false },
      },
      body: { enabled: false },
      hand: { enabled: false },
      object: { enabled: false },
      gesture: { enabled: false },
      segmentation: { enabled: false },
    });
    await h.load();
    return h;
  })();
  human.catch(() => (human = null));
  return human;
}

/** Mean grey and variance of the Laplacian of a grey image (the server's sharpness measure). */
export function greyStats(grey: Uint8ClampedArray, w: number, h: number) {
  let sum = 0;
  for (let i = 0; i < grey.length; i++) sum += grey[i];
  return { brightness: sum / Math.max(1, grey.length), sharpness: laplacianVariance(grey, w, h) };
}

/** One scratch canvas for every frame checked (four a second). */
let canvas: HTMLCanvasElement | null = null;

/** The grey pixels of a region of a video frame, scaled to `size` wide. */
function regionGrey(video: HTMLVideoElement, box: [number, number, number, number], size: number) {
  const [x, y, w, h] = box;
  const height = Math.max(8, Math.round((size * h) / Math.max(1, w)));
  canvas ??= document.createElement('canvas');
  canvas.width = size;
  canvas.height = height;
  const ctx = canvas.getContext('2d', { willReadFrequently: true })!;
  ctx.drawImage(video, x, y, w, h, 0, 0, size, height);
  const rgba = ctx.getImageData(0, 0, size, height).data;
  const grey = new Uint8ClampedArray(size * height);
  for (let i = 0; i < grey.length; i++)
    grey[i] = 0.299 * rgba[4 * i] + 0.587 * rgba[4 * i + 1] + 0.114 * rgba[4 * i + 2];
  return { grey, w: size, h: height };
}

/** Face-region sharpness at 128 px wide; the server measures at 256 px, where the same face scores higher. */
const MIN_LIVE_SHARPNESS = SELFIE.minFaceSharpness;

export async function checkSelfieFrame(video: HTMLVideoElement): Promise<FaceCheck> {
  const h = await loadFaceDetector();
  const vw = video.videoWidth;
  const vh = video.videoHeight;
  if (!vw || !vh) return { advice: 'noFace', faces: 0, brightness: null, sharpness: null };
  const result = await h.detect(video);
  const faces = result.face.filter((f) => f.score >= SELFIE.minFaceScore);
  if (faces.length === 0) {
    // No face: say "too dark" when it is, which is the usual reason a camera sees none.
    const whole = regionGrey(video, [0, 0, vw, vh], 96);
    const s = greyStats(whole.grey, whole.w, whole.h);
    return {
      advice: s.brightness < SELFIE.minBrightness ? 'tooDark' : 'noFace',
      faces: 0,
      brightness: s.brightness,
      sharpness: s.sharpness,
    };
  }
  if (faces.length > 1) return { advice: 'multipleFaces', faces: faces.length, brightness: null, sharpness: null };
  const [x, y, w, hh] = faces[0].box;
  const region = regionGrey(video, [Math.max(0, x), Math.max(0, y), Math.min(w, vw - x), Math.min(hh, vh - y)], 128);
  const s = greyStats(region.grey, region.w, region.h);
  const base = { faces: 1, brightness: s.brightness, sharpness: s.sharpness };
  if (s.brightness < SELFIE.minBrightness) return { advice: 'tooDark', ...base };
  if (s.brightness > SELFIE.maxBrightness) return { advice: 'tooBright', ...base };
  const size = hh / Math.min(vw, vh);
  if (size < SELFIE.minFaceSize * 1.2) return { advice: 'tooFar', ...base };
  if (size > 0.95) return { advice: 'tooClose', ...base };
  const cx = (x + w / 2) / vw;
  const cy = (y + hh / 2) / vh;
  if (Math.abs(cx - 0.5) > 0.2 || Math.abs(cy - 0.5) > 0.25) return { advice: 'notCentred', ...base };
  if (s.sharpness < MIN_LIVE_SHARPNESS) return { advice: 'blurry', ...base };
  return { advice: 'ready', ...base };
}

/**
 * The document guide on a camera frame in the browser: a small copy of the frame in a canvas for the outline,
 * glare and light (find-document.ts), and the document's own inside at GUIDE.sharpnessWidth for sharpness (the
 * server's measure, lib/domain/media/laplacian.ts). Loaded only on the document step (a separate chunk).
 */
import { laplacianVariance } from '@/lib/domain/media/laplacian';
import {
  adviseDocument,
  findDocument,
  GUIDE,
  innerBox,
  meanGrey,
  type DocumentAdvice,
  type Quad,
} from './find-document';

export type DocumentCheck = {
  advice: DocumentAdvice;
  /** the document's corners in the video's own pixels, when one is found */
  quad: Quad | null;
  areaShare: number | null;
  glare: number | null;
  sharpness: number | null;
};

let small: HTMLCanvasElement | null = null;
let detail: HTMLCanvasElement | null = null;

function pixels(
  canvas: HTMLCanvasElement,
  video: HTMLVideoElement,
  box: { x: number; y: number; w: number; h: number },
  width: number,
) {
  const height = Math.max(8, Math.round((width * box.h) / Math.max(1, box.w)));
  canvas.width = width;
  canvas.height = height;
  const ctx = canvas.getContext('2d', { willReadFrequently: true })!;
  ctx.drawImage(video, box.x, box.y, box.w, box.h, 0, 0, width, height);
  return { rgba: ctx.getImageData(0, 0, width, height).data, w: width, h: height };
}

export function checkDocumentFrame(video: HTMLVideoElement): DocumentCheck | null {
  const vw = video.videoWidth;
  const vh = video.videoHeight;
  if (!vw || !vh) return null;
  small ??= document.createElement('canvas');
  const f = pixels(small, video, { x: 0, y: 0, w: vw, h: vh }, GUIDE.analysisWidth);
  const found = findDocument(f.rgba, f.w, f.h);
  const scale = vw / f.w;
  const quad =
    found && found !== 'cutOff' ? (found.quad.map((p) => ({ x: p.x * scale, y: p.y * (vh / f.h) })) as Quad) : null;
  let sharpness: number | null = null;
  // Sharpness only matters once the document is placed: measured then, on its inside (not its edge on the table).
  if (found && found !== 'cutOff' && adviseDocument(found, 255, Infinity) === 'ready' && quad) {
    const b = innerBox(quad);
    detail ??= document.createElement('canvas');
    const d = pixels(detail, video, b, GUIDE.sharpnessWidth);
    const grey = new Uint8ClampedArray(d.w * d.h);
    for (let i = 0; i < grey.length; i++)
      grey[i] = 0.299 * d.rgba[4 * i] + 0.587 * d.rgba[4 * i + 1] + 0.114 * d.rgba[4 * i + 2];
    sharpness = laplacianVariance(grey, d.w, d.h);
  }
  const placed = found && found !== 'cutOff' ? found : null;
  return {
    advice: adviseDocument(found, meanGrey(f.rgba), sharpness),
    quad,
    areaShare: placed?.areaShare ?? null,
    glare: placed?.glare ?? null,
    sharpness,
  };
}

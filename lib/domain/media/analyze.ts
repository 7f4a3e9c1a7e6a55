/**
 * Measures an uploaded image: no decisions here (lib/domain/media/validate.ts applies the thresholds).
 * Runs inside a worker thread (lib/domain/media/pool.ts); decodes once, re-encodes without metadata.
 */
import sharp from 'sharp';
import type { FaceResult } from '@vladmandic/human';
import { moireScore, periodicPeakRatio } from '../faces/replay';
import type { Tensor3D } from '@tensorflow/tfjs-core';
import { AGE_CALIBRATION, estimateAge, type AgeFeatures } from '../faces/age';
import { describeFace } from '../faces/describe';
import type { FaceModels } from '../faces/models';
import type { Rgb } from '../faces/align';
import { laplacianVariance } from './laplacian';
import { turnOf } from './pose';
import type { Analysis, FaceMeasure, LightSharpness } from './types';
import { ANALYSIS_VERSION } from './version';

export { laplacianVariance };

export const MAX_PIXELS = 8000 * 8000;
const WORK_LONG_SIDE = 960; // what the face models see; they resize further internally

type Region = { left: number; top: number; width: number; height: number };

function meanStd(grey: Uint8Array) {
  let s = 0;
  let s2 = 0;
  for (const v of grey) {
    s += v;
    s2 += v * v;
  }
  const m = s / grey.length;
  return { mean: m, std: Math.sqrt(Math.max(0, s2 / grey.length - m * m)) };
}

/**
 * Light and sharpness of a region of the oriented image, measured at a fixed size so thresholds do not
 * depend on resolution.
 * `oriented` is the encoded image with its orientation applied; `size` the long side the region is scaled to.
 */
async function lightAndSharpness(oriented: Buffer, region: Region | null, size: number): Promise<LightSharpness> {
  let img = sharp(oriented);
  if (region) img = img.extract(region);
  const { data, info } = await img
    .greyscale()
    .resize({ width: size, height: size, fit: 'inside' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const grey = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  const { mean } = meanStd(grey);
  let clipped = 0;
  for (const v of grey) if (v >= 250) clipped++;
  return {
    brightness: round(mean),
    overexposed_fraction: round(clipped / grey.length, 3),
    sharpness: round(laplacianVariance(grey, info.width, info.height)),
  };
}

const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

/** The box [x, y, w, h] grown by `pad` of its size on each side, inside the image. */
function clampRegion(size: { width: number; height: number }, box: number[], pad = 0): Region {
  const [x, y, w, h] = box;
  const left = Math.max(0, Math.floor(x - w * pad));
  const top = Math.max(0, Math.floor(y - h * pad));
  const right = Math.min(size.width, Math.ceil(x + w * (1 + pad)));
  const bottom = Math.min(size.height, Math.ceil(y + h * (1 + pad)));
  return { left, top, width: Math.max(1, right - left), height: Math.max(1, bottom - top) };
}

/**
 * Texture of the face's key regions (eyes, mouth) against its cheeks, from the mesh: an occluder (a bar,
 * a hand, a sticker) is flat or off skin colour where eyes and lips have texture.
 * `ann` are the mesh annotations in work-image pixels.
 */
function regionStats(rgb: Rgb, ann: Record<string, number[][]>): FaceMeasure['regions'] {
  const stats = (pts: number[][], pad = 0.25) => {
    if (!pts || pts.length === 0) return null;
    const xs = pts.map((p) => p[0]);
    const ys = pts.map((p) => p[1]);
    let x0 = Math.min(...xs);
    let x1 = Math.max(...xs);
    let y0 = Math.min(...ys);
    let y1 = Math.max(...ys);
    const pw = (x1 - x0) * pad + 2;
    const ph = (y1 - y0) * pad + 2;
    x0 = Math.max(0, Math.floor(x0 - pw));
    x1 = Math.min(rgb.width - 1, Math.ceil(x1 + pw));
    y0 = Math.max(0, Math.floor(y0 - ph));
    y1 = Math.min(rgb.height - 1, Math.ceil(y1 + ph));
    let n = 0;
    let s = 0;
    let s2 = 0;
    const c = [0, 0, 0];
    for (let y = y0; y <= y1; y++) {
      for (let x = x0; x <= x1; x++) {
        const i = (y * rgb.width + x) * 3;
        const g = 0.299 * rgb.data[i] + 0.587 * rgb.data[i + 1] + 0.114 * rgb.data[i + 2];
        s += g;
        s2 += g * g;
        c[0] += rgb.data[i];
        c[1] += rgb.data[i + 1];
        c[2] += rgb.data[i + 2];
        n++;
      }
    }
    if (n === 0) return null;
    const m = s / n;
    return { std: Math.sqrt(Math.max(0, s2 / n - m * m)), color: c.map((v) => v / n) };
  };
  const leftEye = stats([...(ann.leftEyeUpper0 ?? []), ...(ann.leftEyeLower0 ?? [])]);
  const rightEye = stats([...(ann.rightEyeUpper0 ?? []), ...(ann.rightEyeLower0 ?? [])]);
  const mouth = stats([...(ann.lipsUpperOuter ?? []), ...(ann.lipsLowerOuter ?? [])], 0.15);
  const cheeks = stats([...(ann.leftCheek ?? []), ...(ann.rightCheek ?? [])], 6);
  const dist = (r: { color: number[] } | null) =>
    r && cheeks
      ? Math.hypot(r.color[0] - cheeks.color[0], r.color[1] - cheeks.color[1], r.color[2] - cheeks.color[2])
      : 0;
  return {
    left_eye_texture: round(leftEye?.std ?? 0),
    right_eye_texture: round(rightEye?.std ?? 0),
    mouth_texture: round(mouth?.std ?? 0),
    left_eye_color_distance: round(dist(leftEye)),
    right_eye_color_distance: round(dist(rightEye)),
    mouth_color_distance: round(dist(mouth)),
  };
}

/**
 * The largest card-shaped region that stands out from the image border (the background): its share of
 * the frame, aspect ratio, how rectangular it is, and how much fine detail (print) it carries.
 */
async function findDocument(oriented: Buffer) {
  const { data, info } = await sharp(oriented)
    .greyscale()
    .resize({ width: 400, height: 400, fit: 'inside' })
    .blur(1)
    .raw()
    .toBuffer({ resolveWithObject: true });
  const w = info.width;
  const h = info.height;
  const g = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  const border = [];
  for (let x = 0; x < w; x++) border.push(g[x], g[(h - 1) * w + x]);
  for (let y = 0; y < h; y++) border.push(g[y * w], g[y * w + w - 1]);
  border.sort((a, b) => a - b);
  const bg = border[border.length >> 1];
  const mask = new Uint8Array(w * h);
  for (let i = 0; i < g.length; i++) mask[i] = Math.abs(g[i] - bg) > 28 ? 1 : 0;
  // Close small gaps (print on the card) with a 2-pixel dilation before labelling.
  const closed = new Uint8Array(w * h);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      let on = 0;
      for (let dy = -2; dy <= 2 && !on; dy++)
        for (let dx = -2; dx <= 2 && !on; dx++) {
          const yy = y + dy;
          const xx = x + dx;
          if (yy >= 0 && yy < h && xx >= 0 && xx < w && mask[yy * w + xx]) on = 1;
        }
      closed[y * w + x] = on;
    }
  const label = new Int32Array(w * h);
  let best = { count: 0, x0: 0, y0: 0, x1: 0, y1: 0 };
  let next = 1;
  const stack: number[] = [];
  for (let start = 0; start < w * h; start++) {
    if (!closed[start] || label[start]) continue;
    let count = 0;
    let x0 = w;
    let y0 = h;
    let x1 = 0;
    let y1 = 0;
    stack.push(start);
    label[start] = next;
    while (stack.length) {
      const i = stack.pop()!;
      const x = i % w;
      const y = (i / w) | 0;
      count++;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
      for (const j of [i - 1, i + 1, i - w, i + w]) {
        if (j < 0 || j >= w * h || label[j] || !closed[j]) continue;
        if ((j === i - 1 && x === 0) || (j === i + 1 && x === w - 1)) continue;
        label[j] = next;
        stack.push(j);
      }
    }
    if (count > best.count) best = { count, x0, y0, x1, y1 };
    next++;
  }
  const bw = best.x1 - best.x0 + 1;
  const bh = best.y1 - best.y0 + 1;
  return {
    area_fraction: round((bw * bh) / (w * h), 3),
    fill: round(best.count / Math.max(1, bw * bh), 3),
    aspect: round(Math.max(bw, bh) / Math.max(1, Math.min(bw, bh)), 2),
    /** box in the 400-px image's coordinates, and that image's size, for mapping back */
    box400: [best.x0, best.y0, bw, bh],
    size400: [w, h],
  };
}

/**
 * The screen/print pattern signal (lib/domain/faces/replay.mjs) on the face, at the stored image's own resolution:
 * a 256 (or 128) pixel square at the centre of the face box.
 */
async function replayScores(
  oriented: Buffer,
  size: { width: number; height: number },
  box: number[],
): Promise<{ replay: number | null; moire: number | null }> {
  const [x, y, w, h] = box;
  const n = Math.min(w, h) >= 256 ? 256 : Math.min(w, h) >= 128 ? 128 : 64;
  const left = Math.max(0, Math.min(size.width - n, Math.round(x + w / 2 - n / 2)));
  const top = Math.max(0, Math.min(size.height - n, Math.round(y + h / 2 - n / 2)));
  if (size.width < n || size.height < n) return { replay: null, moire: null };
  const { data } = await sharp(oriented)
    .extract({ left, top, width: n, height: n })
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const rgb = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  const grey = new Uint8Array(n * n);
  for (let i = 0; i < n * n; i++)
    grey[i] = Math.round(0.2126 * rgb[i * 3] + 0.7152 * rgb[i * 3 + 1] + 0.0722 * rgb[i * 3 + 2]);
  return { replay: periodicPeakRatio(grey, n), moire: moireScore(rgb, n) };
}

/**
 * Light of the skin: the grey pixels inside the mesh's face outline (silhouette), at the work image's size. A
 * bright studio background inside the face box no longer counts as an overexposed face.
 */
function skinLight(
  rgb: Rgb,
  outline: number[][] | undefined,
): { brightness: number; overexposed_fraction: number } | null {
  if (!outline || outline.length < 3) return null;
  const ys = outline.map((p) => p[1]);
  const y0 = Math.max(0, Math.floor(Math.min(...ys)));
  const y1 = Math.min(rgb.height - 1, Math.ceil(Math.max(...ys)));
  let n = 0;
  let sum = 0;
  let clipped = 0;
  for (let y = y0; y <= y1; y++) {
    // Crossings of this row with the outline polygon (even-odd fill).
    const xs: number[] = [];
    for (let i = 0, j = outline.length - 1; i < outline.length; j = i++) {
      const [xi, yi] = outline[i];
      const [xj, yj] = outline[j];
      if (yi > y !== yj > y) xs.push(xi + ((y - yi) / (yj - yi)) * (xj - xi));
    }
    xs.sort((a, b) => a - b);
    for (let k = 0; k + 1 < xs.length; k += 2) {
      for (let x = Math.max(0, Math.ceil(xs[k])); x <= Math.min(rgb.width - 1, Math.floor(xs[k + 1])); x++) {
        const i = (y * rgb.width + x) * 3;
        const g = 0.299 * rgb.data[i] + 0.587 * rgb.data[i + 1] + 0.114 * rgb.data[i + 2];
        sum += g;
        if (g >= 250) clipped++;
        n++;
      }
    }
  }
  return n ? { brightness: round(sum / n), overexposed_fraction: round(clipped / n, 3) } : null;
}

/**
 * How much of the face the frame cuts off: the share of the mesh's points (468, Human extrapolates them past the
 * edge for a face cut by the frame) that lie outside the image.
 */
function outsideFraction(mesh: number[][], w: number, h: number): number {
  if (!mesh.length) return 0;
  let out = 0;
  for (const [x, y] of mesh) if (x < 0 || y < 0 || x >= w || y >= h) out++;
  return round(out / mesh.length, 3);
}

/** How far the head is turned (lib/domain/media/pose.ts): from the mesh's outer eye corners and nose tip. */
function headTurn(mesh: number[][]): number | null {
  return mesh.length >= 468
    ? turnOf([mesh[33][0], mesh[33][1]], [mesh[263][0], mesh[263][1]], [mesh[1][0], mesh[1][1]])
    : null;
}

/**
 * `between` is called between the analysis's steps (after the decode, the detection, each face's networks and
 * light): the pool's worker passes one that sleeps while another workspace's job must have the core
 * (lib/domain/media/worker.ts); elsewhere it does nothing.
 */
export async function analyze(
  models: FaceModels,
  input: { bytes: Uint8Array; kind: 'selfie' | 'document' },
  between: () => void = () => {},
): Promise<Analysis> {
  const { human, nets } = models;
  const src = sharp(input.bytes, { limitInputPixels: MAX_PIXELS, failOn: 'error' });
  // Orientation applied, metadata (EXIF, GPS, ICC comments) dropped: this is what is stored.
  const stored = await src.rotate().jpeg({ quality: 90, mozjpeg: false }).toBuffer({ resolveWithObject: true });
  const size = { width: stored.info.width, height: stored.info.height };
  const oriented = stored.data;
  between();

  const work = await sharp(oriented)
    .resize({ width: WORK_LONG_SIDE, height: WORK_LONG_SIDE, fit: 'inside', withoutEnlargement: true })
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const workScale = size.width / work.info.width;
  const tensor = human.tf.tensor3d(
    new Uint8Array(work.data.buffer, work.data.byteOffset, work.data.byteLength),
    [work.info.height, work.info.width, 3],
    'int32',
  );
  let result;
  try {
    result = await human.detect(tensor);
  } finally {
    human.tf.dispose(tensor);
  }
  between();
  const rgb: Rgb = {
    data: new Uint8Array(work.data.buffer, work.data.byteOffset, work.data.byteLength),
    width: work.info.width,
    height: work.info.height,
  };

  const faces: FaceMeasure[] = [];
  try {
    for (const f of result.face as FaceResult[]) {
      const box = f.box.map((v) => v * workScale);
      const region = clampRegion(size, box);
      const mesh = f.mesh as number[][];
      const ann = (f.annotations ?? {}) as unknown as Record<string, number[][]>;
      const described = mesh.length >= 468 ? await describeFace(nets, rgb, mesh) : null;
      between();
      // The age estimate is the selfie's (the document's age is its date of birth): the age networks on Human's
      // face crop, and face-api's on the aligned crop, combined by lib/domain/faces/age.ts.
      const ages =
        input.kind === 'selfie' && f.tensor
          ? await models.ages.run(f.tensor as unknown as Tensor3D, AGE_CALIBRATION.views)
          : null;
      const ageFeatures: AgeFeatures | null = ages
        ? {
            ...Object.fromEntries(Object.entries(ages.views).map(([k, v]) => [k, round(v, 2)])),
            face_api: described ? round(described.faceApiAge, 2) : null,
            male: ages.male === null ? null : round(ages.male, 4),
          }
        : null;
      const embedding = described ? described.embedding.map((v) => round(v, 6)) : null;
      between();
      const boxLight = await lightAndSharpness(oriented, region, 256);
      const skin = skinLight(rgb, ann.silhouette);
      faces.push({
        score: round(f.score, 3),
        detector_score: round(f.boxScore ?? f.score, 3),
        mesh_score: round(f.faceScore ?? 0, 3),
        box: box.map((v) => Math.round(v)) as [number, number, number, number],
        /** face height as a share of the image's shorter side */
        size_fraction: round(box[3] / Math.min(size.width, size.height), 3),
        // Light of the skin inside the face outline where the mesh gives one, else of the face box.
        brightness: skin?.brightness ?? boxLight.brightness,
        overexposed_fraction: skin?.overexposed_fraction ?? boxLight.overexposed_fraction,
        sharpness: boxLight.sharpness,
        outside_fraction: outsideFraction(mesh, rgb.width, rgb.height),
        yaw: f.rotation?.angle ? round(f.rotation.angle.yaw, 3) : null,
        turn: headTurn(mesh),
        regions: regionStats(rgb, ann),
        age: ageFeatures ? estimateAge(ageFeatures, embedding) : null,
        age_features: ageFeatures,
        gender: ages?.gender ?? null,
        gender_score: ages?.gender_score == null ? null : round(ages.gender_score, 2),
        real: f.real === undefined ? null : round(f.real, 3),
        live: f.live === undefined ? null : round(f.live, 3),
        embedding,
        replay_score: null,
        moire_score: null,
      });
    }
  } finally {
    for (const f of result.face as FaceResult[]) if (f.tensor) human.tf.dispose(f.tensor);
  }
  faces.sort((a, b) => b.score * b.box[2] * b.box[3] - a.score * a.box[2] * a.box[3]);
  if (input.kind === 'selfie' && faces[0]) {
    const r = await replayScores(oriented, size, faces[0].box);
    faces[0].replay_score = r.replay;
    faces[0].moire_score = r.moire;
  }

  between();
  const whole = await lightAndSharpness(oriented, null, 512);
  let document: Analysis['document'] = null;
  if (input.kind === 'document') {
    const d = await findDocument(oriented);
    const k = size.width / d.size400[0];
    const region = clampRegion(
      size,
      d.box400.map((v: number) => v * k),
    );
    document = {
      ...d,
      box: [region.left, region.top, region.width, region.height],
      ...(await lightAndSharpness(oriented, region, 800)),
    };
  }
  return {
    version: ANALYSIS_VERSION,
    width: size.width,
    height: size.height,
    whole,
    faces,
    document,
    stored: oriented,
  };
}

/**
 * The labelled face set behind calibration and the pipeline tests: every face in the packaged photos
 * (astronaut, Grace Hopper, face-api's six demo collages), each cropped to a selfie-like frame, plus
 * edited copies of the same face (the only same-person pairs that exist offline) and attack renderings
 * (a screen replay, a printed halftone). Ages are known only for the two public-domain portraits.
 */
import sharp, { type Sharp } from 'sharp';
import type { Analysis } from '../../lib/domain/media/types';
import * as I from './images';

export type LabelledFace = { id: string; person: string; knownAge: number | null; image: Buffer };

/**
 * Known ages at the time of the photograph: Eileen Collins (born 19 Nov 1956), NASA portrait of 1994 → 37;
 * Grace Hopper (born 9 Dec 1906), US Navy portrait of 1984 → 77.
 */
export const KNOWN_AGES = { astronaut: 37, grace_hopper: 77 } as const;

const SELFIE = 640;

/** A face cropped with margin and scaled to a selfie-sized square (the face about half the frame). */
export async function cropFace(img: Buffer, box: number[], size = SELFIE): Promise<Buffer> {
  const meta = await sharp(img).metadata();
  const [x, y, w, h] = box;
  const side = Math.max(w, h) * 2;
  const cx = x + w / 2;
  const cy = y + h / 2;
  const left = Math.max(0, Math.round(cx - side / 2));
  const top = Math.max(0, Math.round(cy - side / 2));
  const width = Math.min(meta.width! - left, Math.round(side));
  const height = Math.min(meta.height! - top, Math.round(side));
  return sharp(img)
    .extract({ left, top, width, height })
    .resize(size, size, { fit: 'contain', background: '#556' })
    .jpeg({ quality: 92 })
    .toBuffer();
}

export type Analyze = (bytes: Buffer, kind: 'selfie') => Promise<Analysis>;

/**
 * Every face of the packaged photos, one per person (the collages hold different people). `analyze` is the
 * caller's: the worker pool in tests, a Human of its own in scripts.
 */
export async function labelledFaces(analyze: Analyze): Promise<LabelledFace[]> {
  const out: LabelledFace[] = [
    {
      id: 'astronaut',
      person: 'astronaut',
      knownAge: KNOWN_AGES.astronaut,
      image: await sharp(I.astronaut()).resize(SELFIE, SELFIE).jpeg({ quality: 92 }).toBuffer(),
    },
    {
      id: 'grace_hopper',
      person: 'grace_hopper',
      knownAge: KNOWN_AGES.grace_hopper,
      image: await sharp(I.graceHopper())
        .resize(SELFIE, SELFIE, { fit: 'cover', position: 'top' })
        .jpeg({ quality: 92 })
        .toBuffer(),
    },
  ];
  for (const n of [1, 2, 3, 4, 5, 6] as const) {
    const img = I.faceApiSample(n);
    const a = await analyze(img, 'selfie');
    for (const [i, f] of a.faces.entries()) {
      if (f.score < 0.5) continue;
      const image = await cropFace(a.stored, f.box);
      // A crop that also catches a neighbour's face is no selfie (the upload would refuse it: MULTIPLE_FACES).
      if ((await analyze(image, 'selfie')).faces.length !== 1) continue;
      out.push({ id: `sample${n}-${i}`, person: `sample${n}-${i}`, knownAge: null, image });
    }
  }
  return out;
}

/** Edited copies of one photo: what a second capture of the same person changes (light, pose, scale, noise). */
export async function sameFaceVariants(image: Buffer): Promise<{ name: string; image: Buffer }[]> {
  const meta = await sharp(image).metadata();
  const w = meta.width!;
  const h = meta.height!;
  const j = (s: Sharp) => s.jpeg({ quality: 85 }).toBuffer();
  return [
    { name: 'mirrored', image: await j(sharp(image).flop()) },
    { name: 'darker', image: await j(sharp(image).linear(0.7, 0)) },
    { name: 'brighter', image: await j(sharp(image).linear(1.15, 20)) },
    {
      name: 'rotated 8°',
      image: await j(sharp(image).rotate(8, { background: '#556' }).resize(w, h, { fit: 'cover' })),
    },
    {
      name: 'closer',
      image: await j(
        sharp(image)
          .extract({
            left: Math.round(w * 0.1),
            top: Math.round(h * 0.08),
            width: Math.round(w * 0.8),
            height: Math.round(h * 0.8),
          })
          .resize(w, h),
      ),
    },
    {
      name: 'low resolution',
      image: await j(
        sharp(image)
          .resize(Math.round(w / 3))
          .resize(w, h),
      ),
    },
    { name: 'jpeg q30', image: await sharp(image).jpeg({ quality: 30 }).toBuffer() },
  ];
}

/**
 * A replay attack: the photo shown on an LCD and photographed. Each pixel becomes a cell of R, G, B
 * stripes with a dark gap (the sub-pixel grid), the phone is held at a slight angle, and the camera
 * resamples the grid at a non-integer scale: the fine periodic pattern and moiré a real scene never has.
 */
export async function screenReplay(image: Buffer, strength = 0.45): Promise<Buffer> {
  const meta = await sharp(image).metadata();
  const w = meta.width!;
  const h = meta.height!;
  // The screen shows the photo at its own resolution: one screen pixel covers about 2.5 camera pixels.
  const sw = Math.round(w / 2.5);
  const sh = Math.round(h / 2.5);
  const src = await sharp(image).resize(sw, sh).removeAlpha().raw().toBuffer();
  const K = 4;
  const W = sw * K;
  const H = sh * K;
  const out = Buffer.alloc(W * H * 3);
  for (let y = 0; y < H; y++) {
    const sy = (y / K) | 0;
    const rowGap = y % K === K - 1;
    for (let x = 0; x < W; x++) {
      const sx = (x / K) | 0;
      const sub = x % K; // 0 R, 1 G, 2 B, 3 gap
      const i = (y * W + x) * 3;
      for (let c = 0; c < 3; c++) {
        const v = src[(sy * sw + sx) * 3 + c];
        const lit = !rowGap && sub === c ? 1 + strength : 1 - strength;
        out[i + c] = Math.max(0, Math.min(255, v * lit));
      }
    }
  }
  // Held at a slight angle; the camera resamples the grid (no optical low-pass filter in phone cameras).
  const shot = await sharp(out, { raw: { width: W, height: H, channels: 3 } })
    .rotate(3, { background: '#222' })
    .png({ compressionLevel: 0 })
    .toBuffer();
  return sharp(shot).resize(w, h, { fit: 'cover', kernel: 'linear' }).jpeg({ quality: 90 }).toBuffer();
}

/** A printed photo: the picture as a halftone dot screen at 45°, photographed slightly soft. */
export async function printedHalftone(image: Buffer, cell = 4, strength = 0.5): Promise<Buffer> {
  const meta = await sharp(image).metadata();
  const w = meta.width!;
  const h = meta.height!;
  const rgb = await sharp(image).removeAlpha().raw().toBuffer();
  const out = Buffer.alloc(w * h * 3);
  const c = Math.SQRT1_2;
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const u = ((((x * c + y * c) / cell) % 1) + 1) % 1;
      const v = ((((-x * c + y * c) / cell) % 1) + 1) % 1;
      const dot = Math.cos(2 * Math.PI * u) * Math.cos(2 * Math.PI * v); // -1..1, the dot pattern
      for (let k = 0; k < 3; k++) {
        const i = (y * w + x) * 3 + k;
        out[i] = Math.max(0, Math.min(255, rgb[i] * (1 + strength * 0.5 * dot)));
      }
    }
  return sharp(out, { raw: { width: w, height: h, channels: 3 } })
    .blur(0.5)
    .jpeg({ quality: 90 })
    .toBuffer();
}

/**
 * A screen photographed from further away: the photo shown on a display whose R, G, B sub-pixel columns are
 * finer than the camera resolves, sampled by the camera's pixel grid (no optical low-pass filter in phones) and
 * slightly out of focus. No stripes are visible; the grid beats against the sampling into colour moiré bands.
 * `density` is screen pixels per camera pixel (near 1: slow beats), `angle` the tilt of the phone in degrees.
 */
export async function moireReplay(
  image: Buffer,
  opts: { density?: number; angle?: number; blur?: number; strength?: number } = {},
): Promise<Buffer> {
  const { density = 1.1, angle = 1.5, blur = 1.2, strength = 0.25 } = opts;
  const meta = await sharp(image).metadata();
  const w = meta.width!;
  const h = meta.height!;
  const sw = Math.round(w * density);
  const sh = Math.round(h * density);
  const src = await sharp(image).resize(sw, sh).removeAlpha().raw().toBuffer();
  const K = 3; // one device pixel per sub-pixel column
  const W = sw * K;
  const H = sh * K;
  const out = Buffer.alloc(W * H * 3);
  for (let y = 0; y < H; y++) {
    const sy = (y / K) | 0;
    const gap = y % K === K - 1;
    for (let x = 0; x < W; x++) {
      const sx = (x / K) | 0;
      const sub = x % K;
      const i = (y * W + x) * 3;
      for (let c = 0; c < 3; c++)
        out[i + c] = Math.max(
          0,
          Math.min(255, Math.round(src[(sy * sw + sx) * 3 + c] * (sub === c && !gap ? 1 + strength : 1 - strength))),
        );
    }
  }
  const shot = await sharp(out, { raw: { width: W, height: H, channels: 3 } })
    .rotate(angle, { background: '#111' })
    .png({ compressionLevel: 0 })
    .toBuffer();
  return sharp(shot).resize(w, h, { fit: 'cover', kernel: 'nearest' }).blur(blur).jpeg({ quality: 90 }).toBuffer();
}

/** A phone held up to the camera: the screen replay (visible sub-pixel stripes) inside a dark bezel, on a room background. */
export async function screenWithBezel(image: Buffer): Promise<Buffer> {
  const meta = await sharp(image).metadata();
  const w = meta.width!;
  const h = meta.height!;
  const screen = await sharp(await screenReplay(image))
    .resize(Math.round(w * 0.86), Math.round(h * 0.86))
    .toBuffer();
  const bezel = await sharp({
    create: { width: Math.round(w * 0.92), height: Math.round(h * 0.92), channels: 3, background: '#111' },
  })
    .composite([{ input: screen, left: Math.round(w * 0.03), top: Math.round(h * 0.03) }])
    .png()
    .toBuffer();
  return sharp({ create: { width: w, height: h, channels: 3, background: { r: 150, g: 140, b: 125 } } })
    .composite([{ input: bezel, left: Math.round(w * 0.04), top: Math.round(h * 0.04) }])
    .jpeg({ quality: 90 })
    .toBuffer();
}

/**
 * The document guide's finder and advice (find-document.ts) on synthetic documents photographed on a table
 * (test/helpers/document-scene.ts), each frame analysed as the page does: a copy GUIDE.analysisWidth wide for the
 * outline, the document's inside at GUIDE.sharpnessWidth for sharpness.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { laplacianVariance } from '@/lib/domain/media/laplacian';
import { documentScene, type Scene } from '@/test/helpers/document-scene';
import { DOCUMENT_ADVICE_MESSAGES } from '../message-keys';
import {
  adviseDocument,
  DOCUMENT_ADVICE,
  findDocument,
  GUIDE,
  innerBox,
  meanGrey,
  quadShift,
  type Quad,
} from './find-document';

async function analyse(jpeg: Buffer) {
  const { width: W, height: H } = await sharp(jpeg).metadata();
  const w = GUIDE.analysisWidth;
  const h = Math.round((w * H!) / W!);
  const { data } = await sharp(jpeg)
    .resize(w, h, { fit: 'fill' })
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const rgba = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  const found = findDocument(rgba, w, h);
  const placed = found && found !== 'cutOff' ? found : null;
  const quad = placed ? (placed.quad.map((p) => ({ x: (p.x * W!) / w, y: (p.y * H!) / h })) as Quad) : null;
  let sharpness: number | null = null;
  if (quad) {
    const b = innerBox(quad);
    const left = Math.max(0, Math.round(b.x));
    const top = Math.max(0, Math.round(b.y));
    const inner = sharp(jpeg).extract({
      left,
      top,
      width: Math.min(W! - left, Math.round(b.w)),
      height: Math.min(H! - top, Math.round(b.h)),
    });
    const g = await inner
      .resize({ width: GUIDE.sharpnessWidth })
      .greyscale()
      .raw()
      .toBuffer({ resolveWithObject: true });
    sharpness = laplacianVariance(new Uint8Array(g.data), g.info.width, g.info.height);
  }
  const advice = adviseDocument(found, meanGrey(rgba), sharpness);
  console.log(
    JSON.stringify({
      advice,
      area: placed?.areaShare.toFixed(3),
      glare: placed?.glare.toFixed(4),
      sharpness: sharpness?.toFixed(0),
      found: placed ? undefined : found,
    }),
  );
  return { found: placed, quad, advice, W: W!, H: H! };
}

/** The largest distance from a found corner to the true one, as a share of the diagonal (corners may start anywhere). */
function cornerError(quad: Quad, truth: { x: number; y: number }[], W: number, H: number) {
  const shifts = [0, 1, 2, 3].map((s) =>
    Math.max(...quad.map((p, i) => Math.hypot(p.x - truth[(i + s) % 4].x, p.y - truth[(i + s) % 4].y))),
  );
  return Math.min(...shifts) / Math.hypot(W, H);
}

describe('the document guide finds the document and its corners', () => {
  const placed: [string, Scene][] = [
    ['a passport data page, straight', { kind: 'passport' }],
    ['an ID card front', { kind: 'id_card', side: 'front' }],
    ['an ID card back (the MRZ side)', { kind: 'id_card', side: 'back' }],
    ['a driving licence back (the barcode)', { kind: 'driving_licence', side: 'back' }],
    ['turned 15°', { rotate: 15 }],
    ['tilted about 30° in perspective and turned 10°', { tilt: 0.25, rotate: 10 }],
    ['on a grey desk', { table: 'grey' }],
    ['a quarter turn (portrait)', { rotate: 90, scale: 0.52 }],
  ];
  for (const [name, scene] of placed) {
    it(`${name}: outlined within 1.5 % of the diagonal`, async () => {
      const s = await documentScene(scene);
      const r = await analyse(s.jpeg);
      expect(r.quad).not.toBeNull();
      const error = cornerError(r.quad!, s.corners, s.width, s.height);
      console.log(JSON.stringify({ scene: name, cornerError: `${(error * 100).toFixed(2)} %` }));
      expect(error).toBeLessThan(0.015);
    });
  }
  it('a passport tilted about 30° and turned 10°, filling the frame, steady and sharp: ready', async () => {
    expect((await analyse((await documentScene({ tilt: 0.25, rotate: 10, scale: 0.75 })).jpeg)).advice).toBe('ready');
  });
  it("a licence back with its barcode: ready (the barcode's white is not glare)", async () => {
    expect((await analyse((await documentScene({ kind: 'driving_licence', side: 'back' })).jpeg)).advice).toBe('ready');
  });
});

describe('the document guide says what to change', () => {
  it('an empty table: no document', async () => {
    expect((await analyse((await documentScene({ scale: 0.0001 })).jpeg)).advice).toBe('noDocument');
  });
  it("a document far away (a third of the frame's width): closer", async () => {
    expect((await analyse((await documentScene({ scale: 0.4 })).jpeg)).advice).toBe('tooFar');
  });
  it('a document running off the side of the frame: back a little', async () => {
    expect((await analyse((await documentScene({ cx: 0.78 })).jpeg)).advice).toBe('tooClose');
  });
  it('a document filling the whole frame edge to edge: back a little', async () => {
    expect((await analyse((await documentScene({ scale: 1.05 })).jpeg)).advice).toBe('tooClose');
  });
  it('a glare spot over the MRZ: glare', async () => {
    expect((await analyse((await documentScene({ glare: { x: 0.5, y: 0.82, r: 0.12 } })).jpeg)).advice).toBe('glare');
  });
  it('a small highlight (a twentieth of the width): still ready', async () => {
    expect((await analyse((await documentScene({ glare: { x: 0.5, y: 0.82, r: 0.05 } })).jpeg)).advice).toBe('ready');
  });
  it('soft focus (blur σ 2.5): blurry', async () => {
    expect((await analyse((await documentScene({ blur: 2.5 })).jpeg)).advice).toBe('blurry');
  });
  it('slight softness (blur σ 1): still ready', async () => {
    expect((await analyse((await documentScene({ blur: 1 })).jpeg)).advice).toBe('ready');
  });
  it('a dark room (the picture at 12 % of its light): too dark', async () => {
    const s = await documentScene({});
    expect((await analyse(await sharp(s.jpeg).linear(0.12, 0).jpeg().toBuffer())).advice).toBe('tooDark');
  });
});

describe('steadiness', () => {
  const q = (dx: number): Quad => [
    { x: 10 + dx, y: 10 },
    { x: 110 + dx, y: 10 },
    { x: 110 + dx, y: 80 },
    { x: 10 + dx, y: 80 },
  ];
  it('a corner moving 1 % of the diagonal is steady, 3 % is not', () => {
    const diag = Math.hypot(192, 144);
    expect([
      quadShift(q(0), q(0.01 * diag), 192, 144) <= GUIDE.maxShift,
      quadShift(q(0), q(0.03 * diag), 192, 144) <= GUIDE.maxShift,
    ]).toEqual([true, false]);
  });
});

describe('the advice the page can show', () => {
  it('every advice of the guide has its message family member (messages/*.json documentAdvice)', () => {
    expect([...DOCUMENT_ADVICE_MESSAGES]).toEqual([...DOCUMENT_ADVICE]);
  });
});

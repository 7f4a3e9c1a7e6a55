/**
 * Reading a document's machine-readable zone with tesseract.js and two models, loaded locally (no CDN, nothing
 * written to the working directory): an MRZ model vendored in ./tessdata (DoubangoTelecom/tesseractMRZ,
 * BSD-3-Clause, its licence beside it) and the English traineddata from npm (@tesseract.js-data/eng).
 * One worker per model and process, started on first use (0.3-0.5 s) and kept.
 *
 * Tesseract reads the MRZ's letters and digits well but the `<` filler badly: as `<K`, `K` or `L`, so
 * the text has the wrong length and names run into fillers. The MRZ is printed at a fixed pitch, so we
 * place every recognised symbol in its character cell by its position: a phantom K sharing a cell with
 * a `<` disappears, an unread filler becomes an empty cell (= `<`), and every line has its true length.
 */
import sharp from 'sharp';
import { createWorker, PSM, type Worker } from 'tesseract.js';
import { parseMrz, type MrzResult } from './mrz';
import { projectPath } from '../../core/project-path';
import { findZones, flipQuad, scaleQuad, warpQuad, type Grey, type Quad } from './locate';

type Model = 'mrz' | 'eng';
const workers = new Map<Model, Promise<Worker>>();
let queue: Promise<unknown> = Promise.resolve();

/** Where each model's traineddata lives (gzipped): the MRZ model is vendored here, English comes from npm. */
const LANG_PATH: Record<Model, string[]> = {
  mrz: ['lib', 'domain', 'documents', 'tessdata'],
  eng: ['node_modules', '@tesseract.js-data', 'eng', '4.0.0_best_int'],
};

function tesseract(model: Model): Promise<Worker> {
  let w = workers.get(model);
  if (!w) {
    const langPath = projectPath(...LANG_PATH[model]);
    w = (async () => {
      const worker = await createWorker(model, 1, { langPath, gzip: true, cacheMethod: 'none' });
      await worker.setParameters({
        tessedit_char_whitelist: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<',
        tessedit_pageseg_mode: PSM.SINGLE_BLOCK,
      });
      return worker;
    })();
    workers.set(model, w);
    w.catch(() => workers.delete(model));
  }
  return w;
}

/** Stops the workers (tests, scripts). */
export async function stopOcr() {
  const all = [...workers.values()];
  workers.clear();
  for (const w of all) await (await w).terminate();
}

/**
 * The models tried, in order: DoubangoTelecom's MRZ model (tesseractMRZ, BSD-3-Clause, trained on the OCR-B
 * zone; it reads the `<` filler as a filler) first, tesseract's English model only where it reads nothing valid.
 * On real specimens the MRZ model alone read 19 of 25, English alone 14, both 21 (docs/accuracy.md).
 */
const MODELS: Model[] = ['mrz', 'eng'];

type Sym = { text: string; cx: number; conf: number };

/** Places each line's symbols in fixed-pitch cells; `n` is the line length of the format tried. */
export function cellLines(lines: Sym[][], n: number, own = false): string[] {
  const usable = lines.filter((l) => l.length >= n * 0.6);
  if (usable.length === 0) return [];
  // The pitch from the line whose last symbol is real data (a check digit ends TD3 line 2 and TD1 line 2), or each
  // line's own span (a photographed zone is not one straight pitch: perspective changes it from line to line).
  const spans = usable.map((l) => (l[l.length - 1].cx - l[0].cx) / (n - 1));
  const shared = Math.max(...spans);
  return usable.map((l, k) => {
    const pitch = own ? spans[k] : shared;
    const cells: (Sym | null)[] = Array.from({ length: n }, () => null);
    for (const s of l) {
      const i = Math.round((s.cx - l[0].cx) / pitch);
      if (i < 0 || i >= n) continue;
      const cur = cells[i];
      if (!cur || s.text === '<' || (cur.text !== '<' && s.conf > cur.conf)) cells[i] = s;
    }
    const out = cells.map((c) => c?.text ?? '<');
    // A K or L read with less than full confidence next to a filler is a filler.
    for (let i = 0; i < n; i++) {
      const c = cells[i];
      if (c && (c.text === 'K' || c.text === 'L') && c.conf < 96 && (out[i - 1] === '<' || out[i + 1] === '<'))
        out[i] = '<';
    }
    return out.join('');
  });
}

export type MrzRead = { mrz: MrzResult | null; text: string; ms: number; tries?: number };

/** One recognition on the shared worker (one at a time): the text and each line's symbols with their centres. */
async function recognize(png: Buffer, model: Model): Promise<{ text: string; lines: Sym[][] }> {
  const run = queue.then(async () => (await tesseract(model)).recognize(png, {}, { blocks: true, text: true }));
  queue = run.catch(() => undefined);
  const { data } = await run;
  const lines: Sym[][] = [];
  for (const b of data.blocks ?? [])
    for (const p of b.paragraphs)
      for (const l of p.lines) {
        const syms = l.words.flatMap((wd) =>
          wd.symbols.map((s) => ({ text: s.text, cx: (s.bbox.x0 + s.bbox.x1) / 2, conf: s.confidence })),
        );
        if (syms.length > 0) lines.push(syms);
      }
  return { text: data.text, lines };
}

/** The MRZ in recognised lines: fixed-pitch cells for each format's line length, then the raw text. */
function parseRecognised(r: { text: string; lines: Sym[][] }): MrzResult | null {
  for (const n of [44, 36, 30]) {
    for (const own of [false, true]) {
      const mrz = parseMrz(cellLines(r.lines, n, own).join('\n'));
      if (mrz) return mrz;
    }
  }
  return parseMrz(r.text);
}

/** One band read by one model: the MRZ if every check digit holds, and the text recognised. */
async function readBand(png: Buffer, model: Model): Promise<{ mrz: MrzResult | null; text: string }> {
  const r = await recognize(png, model);
  return { mrz: parseRecognised(r), text: r.text };
}

/**
 * Reads the MRZ from the lower part of a document image. `box` is the document region found at upload
 * (x, y, w, h); the MRZ sits in its bottom third on a passport data page and an ID card back.
 */
export async function readMrz(image: Buffer, box: number[] | null): Promise<MrzRead> {
  const t = Date.now();
  const meta = await sharp(image).metadata();
  const W = meta.width ?? 0;
  const H = meta.height ?? 0;
  // The box as found, within the image: a detector's box may reach past an edge by a pixel or more.
  const x = Math.max(0, Math.min(W - 1, Math.round(box?.[0] ?? 0)));
  const y = Math.max(0, Math.min(H - 1, Math.round(box?.[1] ?? 0)));
  const w = Math.min(W - x, Math.round(box?.[2] ?? W));
  const h = Math.min(H - y, Math.round(box?.[3] ?? H));
  let text = '';
  for (const from of [0.6, 0.45]) {
    const top = Math.round(y + h * from);
    const region = { left: x, top, width: w, height: y + h - top };
    if (region.width < 8 || region.height < 8) break;
    const png = await sharp(image).extract(region).greyscale().resize({ width: 1800 }).normalise().png().toBuffer();
    for (const model of MODELS) {
      const { mrz, text: read } = await readBand(png, model);
      text = read;
      if (mrz) return { mrz, text, ms: Date.now() - t };
    }
  }
  return { mrz: null, text, ms: Date.now() - t };
}

/**
 * The zone finder's passes: the photo's long side in pixels, and that over one character's width. The third looks
 * for small print in a large frame (a card's two sides side by side, a document far from the camera).
 */
const PASSES: [number, number][] = [
  [900, 70],
  [1400, 150],
  [600, 70],
];

/** Upper bound on recognitions per photo: each costs 0.15-0.4 s; the zone is nearly always among the first. */
const MAX_TRIES = 6;

/** A warped band as the OCR likes it: local contrast evened (glare, shadow), black text on white. */
async function bandPng(g: Grey): Promise<Buffer> {
  return sharp(Buffer.from(g.data.buffer, g.data.byteOffset, g.data.byteLength), {
    raw: { width: g.width, height: g.height, channels: 1 },
  })
    .clahe({ width: Math.max(3, Math.round(g.height / 2)), height: Math.max(3, Math.round(g.height / 2)), maxSlope: 3 })
    .normalise()
    .extend({ top: 20, bottom: 20, left: 20, right: 20, background: '#ffffff' })
    .png({ compressionLevel: 1 })
    .toBuffer();
}

/**
 * Reads the MRZ of a photo wherever it lies (lib/domain/documents/locate.ts): candidate zones found in three passes
 * (PASSES), each rectified and read as printed and turned half way round, best first, until one holds every check
 * digit; the bands read by the MRZ model first, then by the English one.
 * `oriented` is the image with its EXIF orientation applied.
 */
export async function readMrzPhoto(oriented: Buffer): Promise<MrzRead> {
  const t = Date.now();
  // The source for rectifying: the image itself, its long side capped (a 12 MP photo need not be sampled whole).
  const src = await sharp(oriented)
    .greyscale()
    .resize({ width: 2400, height: 2400, fit: 'inside', withoutEnlargement: true })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const full: Grey = {
    data: new Uint8Array(src.data.buffer, src.data.byteOffset, src.data.byteLength),
    width: src.info.width,
    height: src.info.height,
  };
  let tries = 0;
  let text = '';
  const seen: Quad[] = [];
  const bands: Buffer[] = [];
  for (const [work, per] of PASSES) {
    const k = work / Math.max(full.width, full.height);
    const small = await sharp(Buffer.from(full.data.buffer, full.data.byteOffset, full.data.byteLength), {
      raw: { width: full.width, height: full.height, channels: 1 },
    })
      .resize({ width: Math.round(full.width * k), height: Math.round(full.height * k), fit: 'fill' })
      .toColourspace('b-w')
      .raw()
      .toBuffer({ resolveWithObject: true });
    const g: Grey = {
      data: new Uint8Array(small.data.buffer, small.data.byteOffset, small.data.byteLength),
      width: small.info.width,
      height: small.info.height,
    };
    const zones = findZones(g, Math.round(work / per)).slice(0, 3);
    for (const z of zones) {
      const quad = scaleQuad(z.quad, 1 / k);
      if (seen.some((q) => near(q, quad, Math.max(full.width, full.height) * 0.02))) continue;
      seen.push(quad);
      const len = Math.hypot(quad[1][0] - quad[0][0], quad[1][1] - quad[0][1]);
      const thick = Math.hypot(quad[3][0] - quad[0][0], quad[3][1] - quad[0][1]);
      const outW = 1000;
      const outH = Math.max(40, Math.min(400, Math.round((outW * thick) / Math.max(1, len))));
      for (const q of [quad, flipQuad(quad)]) {
        if (tries >= MAX_TRIES) break;
        tries++;
        const png = await bandPng(warpQuad(full, q, outW, outH));
        bands.push(png);
        const { mrz, text: read } = await readBand(png, MODELS[0]);
        text = read;
        if (mrz) return { mrz, text, ms: Date.now() - t, tries };
      }
    }
  }
  // The next model only once the first has read none of the bands (it costs as much again).
  for (const model of MODELS.slice(1))
    for (const png of bands) {
      const { mrz, text: read } = await readBand(png, model);
      text = read;
      if (mrz) return { mrz, text, ms: Date.now() - t, tries };
    }
  return { mrz: null, text, ms: Date.now() - t, tries };
}

const near = (a: Quad, b: Quad, d: number) => a.every((p, i) => Math.hypot(p[0] - b[i][0], p[1] - b[i][1]) < d);

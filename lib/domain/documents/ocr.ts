/**
 * Reading a document's machine-readable zone with tesseract.js, its English traineddata from npm
 * (@tesseract.js-data/eng), loaded locally: no CDN, nothing written to the working directory.
 * One worker per process, started on first use (0.3-0.5 s) and kept.
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

let worker: Promise<Worker> | null = null;
let queue: Promise<unknown> = Promise.resolve();

function tesseract(): Promise<Worker> {
  if (!worker) {
    const langPath = projectPath('node_modules', '@tesseract.js-data', 'eng', '4.0.0_best_int');
    worker = (async () => {
      const w = await createWorker('eng', 1, { langPath, gzip: true, cacheMethod: 'none' });
      await w.setParameters({ tessedit_char_whitelist: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<', tessedit_pageseg_mode: PSM.SINGLE_BLOCK });
      return w;
    })();
    worker.catch(() => (worker = null));
  }
  return worker;
}

/** Stops the worker (tests, scripts). */
export async function stopOcr() {
  const w = worker;
  worker = null;
  if (w) await (await w).terminate();
}

type Sym = { text: string; cx: number; conf: number };

/** Places each line's symbols in fixed-pitch cells; `n` is the line length of the format tried. */
export function cellLines(lines: Sym[][], n: number): string[] {
  const usable = lines.filter((l) => l.length >= n * 0.6);
  if (usable.length === 0) return [];
  // The pitch from the line whose last symbol is real data (a check digit ends TD3 line 2 and TD1 line 2).
  const spans = usable.map((l) => (l[l.length - 1].cx - l[0].cx) / (n - 1));
  const pitch = Math.max(...spans);
  return usable.map((l) => {
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
      if (c && (c.text === 'K' || c.text === 'L') && c.conf < 96 && (out[i - 1] === '<' || out[i + 1] === '<')) out[i] = '<';
    }
    return out.join('');
  });
}

export type MrzRead = { mrz: MrzResult | null; text: string; ms: number };

/**
 * Reads the MRZ from the lower part of a document image. `box` is the document region found at upload
 * (x, y, w, h); the MRZ sits in its bottom third on a passport data page and an ID card back.
 */
export async function readMrz(image: Buffer, box: number[] | null): Promise<MrzRead> {
  const t = Date.now();
  let area = box;
  if (!area) {
    const meta = await sharp(image).metadata();
    area = [0, 0, meta.width!, meta.height!];
  }
  const [x, y, w, h] = area;
  let text = '';
  for (const from of [0.6, 0.45]) {
    const region = { left: x, top: Math.round(y + h * from), width: w, height: Math.round(h * (1 - from)) };
    const png = await sharp(image).extract(region).greyscale().resize({ width: 1800 }).normalise().png().toBuffer();
    // One recognition at a time on the shared worker.
    const run = queue.then(async () => (await tesseract()).recognize(png, {}, { blocks: true, text: true }));
    queue = run.catch(() => undefined);
    const { data } = await run;
    text = data.text;
    const lines: Sym[][] = [];
    for (const b of data.blocks ?? []) for (const p of b.paragraphs) for (const l of p.lines) {
      const syms = l.words.flatMap((wd) => wd.symbols.map((s) => ({ text: s.text, cx: (s.bbox.x0 + s.bbox.x1) / 2, conf: s.confidence })));
      if (syms.length > 0) lines.push(syms);
    }
    for (const n of [44, 30]) {
      const mrz = parseMrz(cellLines(lines, n).join('\n'));
      if (mrz) return { mrz, text, ms: Date.now() - t };
    }
    const mrz = parseMrz(text);
    if (mrz) return { mrz, text, ms: Date.now() - t };
  }
  return { mrz: null, text, ms: Date.now() - t };
}

/**
 * npm run bench:documents [-- <folder>] [--n N] [--reader-only]
 *
 * The time to read one document photo on this machine, through the evaluator's adapter (evaluation/documents.ts:
 * the upload's checks, then the MRZ or PDF417 read the pipeline makes): p50 and p95 over N reads, one at a time,
 * after a warm-up read whose time (it starts the OCR worker) is printed apart.
 *
 *   <folder>       a folder with a manifest.csv (the evaluator's; its `document` rows are read). Default: phone-like
 *                  captures (evaluation/document-captures.ts, 2 each) of the synthetic passport, ID card back and
 *                  licence back of test/helpers/images.ts, made at start.
 *   --n N          reads timed (default 30; the photos are read in turn, again from the first when N is larger)
 *   --reader-only  time the reader alone on the photo as given (no upload checks, no document box): readMrz on the
 *                  whole image, or the PDF417 read
 */
import fs from 'node:fs';
import sharp from 'sharp';
import os from 'node:os';
import path from 'node:path';
import { AnalysisPool } from '../lib/domain/media/pool';
import { readMrz, stopOcr } from '../lib/domain/documents/ocr';
import { readPdf417 } from '../lib/domain/documents/barcode';
import { parseAamva } from '../lib/domain/documents/aamva';
import { readManifest, type DocumentLabel } from '../evaluation/manifest';
import { outcomeOf, readDocumentPhoto, type DocumentReadResult } from '../evaluation/documents';
import { makeCapture } from '../evaluation/document-captures';
import { quantile } from '../evaluation/stats';
import { personOf } from '../lib/domain/pipeline/checks/document';
import { cliFlags } from '../lib/core/cli-flags';

const flags = cliFlags({ n: '30', 'reader-only': false }, { words: 1 });
const folder = flags.words[0] ?? null;
const N = Number(flags.n);
const readerOnly = flags['reader-only'];
if (!Number.isInteger(N) || N < 1) throw new Error('--n needs a whole number');

type Photo = { file: string; bytes: Buffer; label: DocumentLabel };

/** The default set: two phone-like captures each of a synthetic passport, ID card back and licence back. */
async function syntheticPhones(): Promise<Photo[]> {
  const { renderDocument, DEFAULT_IDENTITY: who } = await import('../test/helpers/images');
  const docs = [
    ['passport', 'front', 'TD3'],
    ['id_card', 'back', 'TD1'],
    ['driving_licence', 'back', 'PDF417'],
  ] as const;
  const out: Photo[] = [];
  for (const [type, side, format] of docs) {
    const doc = await renderDocument(type, side);
    for (let i = 0; i < 2; i++) {
      const { bytes } = await makeCapture(doc, { seed: 'bench', name: type, index: i });
      out.push({
        file: `${type}-cap${i + 1}.jpg`,
        bytes,
        label: { type, birthDate: who.birthDate, expiryDate: who.expiryDate, format, checkDigits: 'valid' },
      });
    }
  }
  return out;
}

async function readerAlone(p: Photo): Promise<DocumentReadResult> {
  // Upright as a viewer shows it (EXIF orientation applied), before the clock starts.
  const bytes = await sharp(p.bytes).rotate().png().toBuffer();
  const t = performance.now();
  const ms = () => Math.round(performance.now() - t);
  try {
    return await readerAloneOn(bytes, p.label.type, ms);
  } catch {
    // today's readMrz throws on some images (an extract outside the image): unread
    return { ok: false, code: 'ERROR', ms: ms() };
  }
}

async function readerAloneOn(
  bytes: Buffer,
  type: DocumentLabel['type'],
  ms: () => number,
): Promise<DocumentReadResult> {
  if (type === 'driving_licence') {
    for (const text of await readPdf417(bytes)) {
      const a = parseAamva(text);
      if (a) return { ok: true, format: 'PDF417', birthDate: a.birthDate, expiryDate: a.expiryDate, ms: ms() };
    }
    return { ok: false, code: 'DOCUMENT_UNREADABLE', ms: ms() };
  }
  const r = await readMrz(bytes, null);
  if (!r.mrz) return { ok: false, code: 'DOCUMENT_UNREADABLE', ms: ms() };
  const person = personOf({ source: 'mrz', mrz: r.mrz.data, corrected: r.mrz.corrected }, new Date());
  if (!person.birthDate) return { ok: false, code: 'DOCUMENT_UNREADABLE', ms: ms() };
  return { ok: true, format: r.mrz.data.format, birthDate: person.birthDate, expiryDate: person.expiryDate, ms: ms() };
}

async function main() {
  const photos: Photo[] = folder
    ? readManifest(path.resolve(folder))
        .filter((r) => r.document)
        .map((r) => ({ file: r.file, bytes: fs.readFileSync(r.path), label: r.document! }))
    : await syntheticPhones();
  if (photos.length === 0) throw new Error('no document rows in the manifest');
  // The analysis worker loads its models before the clock starts; the first read starts the OCR worker.
  const pool = readerOnly ? null : new AnalysisPool(1);
  await pool?.ready();
  const read = (p: Photo) =>
    pool
      ? readDocumentPhoto(p.bytes, { documentType: p.label.type, analyze: (b, k) => pool.analyze(b, k) })
      : readerAlone(p);

  const warm = await read(photos[0]);
  const times: number[] = [];
  const outcomes: Record<string, number> = {};
  for (let i = 0; i < N; i++) {
    const p = photos[i % photos.length];
    const r = await read(p);
    times.push(r.ms);
    if (i < photos.length) {
      // A specimen whose printed check digits are wrong counts apart: it must come back unread.
      const o =
        p.label.checkDigits === 'invalid'
          ? `check digits wrong and ${r.ok ? 'read (must not be)' : 'unread'}`
          : outcomeOf(p.label, r);
      outcomes[o] = (outcomes[o] ?? 0) + 1;
    }
  }
  await pool?.close();
  await stopOcr();
  const q = (p: number) => Math.round(quantile(times, p));
  const set = folder
    ? `${photos.length} document photos of ${path.basename(path.resolve(folder))}`
    : `${photos.length} phone-like captures of synthetic documents (passport, ID card back, licence back)`;
  process.stdout.write(
    `bench:documents${readerOnly ? ' --reader-only' : ''}: ${set}, ${os.availableParallelism()} cores, load ${os.loadavg()[0].toFixed(2)}\n` +
      `one read (${readerOnly ? 'the reader alone' : 'upload checks and the read'}), ${N} reads one at a time: p50 ${q(0.5)} ms, p95 ${q(0.95)} ms, max ${Math.max(...times)} ms\n` +
      `warm-up (the first read, which starts the OCR worker): ${warm.ms} ms, not counted\n` +
      `outcomes of the first pass over the photos: ${Object.entries(outcomes)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}\n`,
  );
}

await main();

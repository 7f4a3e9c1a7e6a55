/**
 * Measures the photos of an evaluation set with the production analysis (the worker pool's analyze(), the
 * upload checks of lib/domain/media/validate.ts and the pipeline's checks), one record per photo, cached by the
 * photo's SHA-256 and the analysis version so an interrupted run resumes and a re-run is instant.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { DomainError } from '../lib/core/errors';
import { ANALYSIS_VERSION } from '../lib/domain/media/version';
import type { AgeFeatures } from '../lib/domain/faces/age';
import { LIMITS } from '../lib/domain/media/thresholds';
import type { Analysis } from '../lib/domain/media/types';
import { checkFile, checkSelfie, checkDocument } from '../lib/domain/media/validate';
import type { ManifestRow } from './manifest';

export type Analyze = (bytes: Uint8Array, kind: 'selfie' | 'document') => Promise<Analysis>;

/** What the analysis says about one photo, independent of its labels (so relabelling keeps the cache). */
export type PhotoMeasure = {
  sha256: string;
  version: string;
  width: number;
  height: number;
  /** smaller than the upload minimum: centred on a canvas of the minimum size (see padToUploadMinimum) */
  padded: boolean;
  upload: { accepted: boolean; code: string | null; failed_checks: string[] };
  faces_found: number;
  /** the face the pipeline would use (the largest usable one), or null */
  face: {
    embedding: number[] | null;
    age: number | null;
    age_features: AgeFeatures | null;
    replay_score: number | null;
    moire_score?: number | null;
    live: number | null;
    real: number | null;
    size_fraction: number;
  } | null;
  /** the same photo printed on a synthetic identity card (--documents): the portrait's embedding */
  document_portrait?: { embedding: number[] | null; upload_code: string | null } | null;
  error?: string;
};

export type PhotoRecord = ManifestRow & PhotoMeasure;

/**
 * The upload minimum is 320x240 (docs/api.md). Smaller photos (face-dataset crops of 200x200 or 250x250) are
 * centred, never scaled, on a canvas of the minimum size filled with the mean colour of the photo's own border:
 * the face keeps its pixels and is not made to look cut off or blurred.
 */
export async function padToUploadMinimum(
  bytes: Uint8Array,
): Promise<{ bytes: Uint8Array; padded: boolean; width: number; height: number }> {
  const meta = await sharp(bytes).rotate().metadata();
  const swap = (meta.orientation ?? 1) >= 5;
  const width = (swap ? meta.height : meta.width) ?? 0;
  const height = (swap ? meta.width : meta.height) ?? 0;
  const long = Math.max(width, height);
  const short = Math.min(width, height);
  if (long >= LIMITS.minLongSide && short >= LIMITS.minShortSide) return { bytes, padded: false, width, height };
  const landscape = width >= height;
  const W = Math.max(width, landscape ? LIMITS.minLongSide : LIMITS.minShortSide);
  const H = Math.max(height, landscape ? LIMITS.minShortSide : LIMITS.minLongSide);
  const { data, info } = await sharp(bytes).rotate().removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const sum = [0, 0, 0];
  let n = 0;
  const add = (x: number, y: number) => {
    const i = (y * info.width + x) * 3;
    sum[0] += data[i];
    sum[1] += data[i + 1];
    sum[2] += data[i + 2];
    n++;
  };
  for (let x = 0; x < info.width; x++) {
    add(x, 0);
    add(x, info.height - 1);
  }
  for (let y = 0; y < info.height; y++) {
    add(0, y);
    add(info.width - 1, y);
  }
  const [r, g, b] = sum.map((s) => Math.round(s / n));
  const left = Math.floor((W - width) / 2);
  const top = Math.floor((H - height) / 2);
  const out = await sharp(data, { raw: { width: info.width, height: info.height, channels: 3 } })
    .extend({ left, right: W - width - left, top, bottom: H - height - top, background: { r, g, b } })
    .png()
    .toBuffer();
  return { bytes: out, padded: true, width, height };
}

const sha256 = (b: Uint8Array) => crypto.createHash('sha256').update(b).digest('hex');

/** The upload checks of a selfie, as POST …/media runs them: file checks, then the analysis's. */
async function uploadOutcome(bytes: Uint8Array, analysis: Analysis | null, kind: 'selfie' | 'document') {
  try {
    const { checks } = await checkFile(bytes);
    if (!analysis)
      return { accepted: false, code: 'UNSUPPORTED_MEDIA_TYPE', failed_checks: ['UNSUPPORTED_MEDIA_TYPE'] };
    const { failed } = kind === 'selfie' ? checkSelfie(analysis, checks) : checkDocument(analysis, checks, 'front');
    return { accepted: failed.length === 0, code: failed[0] ?? null, failed_checks: failed as string[] };
  } catch (e) {
    if (e instanceof DomainError) return { accepted: false, code: e.code, failed_checks: [e.code] };
    throw e;
  }
}

export type MeasureOptions = {
  analyze: Analyze;
  cacheDir: string | null;
  documents?: (portrait: Uint8Array) => Promise<Uint8Array>;
};

function readCache<T>(file: string | null): T | null {
  return file && fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as T) : null;
}
function writeCache(file: string | null, value: unknown) {
  if (!file) return;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file + '.tmp', JSON.stringify(value));
  fs.renameSync(file + '.tmp', file);
}

/** Whether the cache already holds this photo's measurement at the current analysis version. */
export function isCached(row: ManifestRow, cacheDir: string): boolean {
  return fs.existsSync(path.join(cacheDir, ANALYSIS_VERSION, `${sha256(fs.readFileSync(row.path))}.json`));
}

/**
 * Measures one photo (or reads it from the cache). Never throws for a bad photo: the record carries the error.
 * With `documents`, a photo of a labelled person is also printed on a synthetic ID card and the card analysed
 * as a document upload (cached apart, so the option can be added to a finished run).
 */
export async function measurePhoto(row: ManifestRow, opts: MeasureOptions): Promise<PhotoRecord & { cached: boolean }> {
  const original = fs.readFileSync(row.path);
  const hash = sha256(original);
  const base = opts.cacheDir ? path.join(opts.cacheDir, ANALYSIS_VERSION, hash) : null;
  let m = readCache<PhotoMeasure>(base && `${base}.json`);
  let cached = m !== null;
  let stored: Uint8Array | null = null;
  if (!m) {
    try {
      const prepared = await padToUploadMinimum(original);
      const analysis = await opts.analyze(prepared.bytes, 'selfie');
      stored = analysis.stored;
      const upload = await uploadOutcome(prepared.bytes, analysis, 'selfie');
      const { face } = checkSelfie(analysis, {});
      m = {
        sha256: hash,
        version: ANALYSIS_VERSION,
        width: prepared.width,
        height: prepared.height,
        padded: prepared.padded,
        upload,
        faces_found: analysis.faces.length,
        face: face
          ? {
              embedding: face.embedding,
              age: face.age,
              age_features: face.age_features ?? null,
              replay_score: face.replay_score ?? null,
              moire_score: face.moire_score ?? null,
              live: face.live,
              real: face.real,
              size_fraction: face.size_fraction,
            }
          : null,
      };
    } catch (e) {
      m = {
        sha256: hash,
        version: ANALYSIS_VERSION,
        width: 0,
        height: 0,
        padded: false,
        upload: { accepted: false, code: 'UNSUPPORTED_MEDIA_TYPE', failed_checks: ['UNSUPPORTED_MEDIA_TYPE'] },
        faces_found: 0,
        face: null,
        error: e instanceof Error ? e.message : String(e),
      };
    }
    writeCache(base && `${base}.json`, m);
  }
  if (opts.documents && row.person !== null && m.face) {
    let doc = readCache<{ document_portrait: PhotoMeasure['document_portrait'] }>(base && `${base}.doc.json`);
    if (!doc) {
      cached = false;
      const card = await opts.documents(stored ?? (await padToUploadMinimum(original)).bytes);
      const d = await opts.analyze(card, 'document');
      const du = await uploadOutcome(card, d, 'document');
      doc = { document_portrait: { embedding: d.faces[0]?.embedding ?? null, upload_code: du.code } };
      writeCache(base && `${base}.doc.json`, doc);
    }
    m = { ...m, document_portrait: doc.document_portrait };
  }
  return { ...row, ...m, cached };
}

/** Measures every row with at most `concurrency` photos in flight, reporting progress after each. */
export async function measureAll(
  rows: ManifestRow[],
  opts: MeasureOptions & { concurrency: number; onProgress?: (done: number, total: number, cached: number) => void },
): Promise<PhotoRecord[]> {
  const out: PhotoRecord[] = new Array(rows.length);
  let next = 0;
  let done = 0;
  let cached = 0;
  const worker = async () => {
    while (next < rows.length) {
      const i = next++;
      const r = await measurePhoto(rows[i], opts);
      if (r.cached) cached++;
      const { cached: _c, ...rec } = r;
      void _c;
      out[i] = rec;
      done++;
      opts.onProgress?.(done, rows.length, cached);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.concurrency) }, worker));
  return out;
}

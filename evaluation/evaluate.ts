/**
 * npm run evaluate -- <folder> [options]: measures this deployment's analysis on a folder of labelled photos and
 * writes a report (docs/evaluation.md explains it).
 *
 *   <folder>/manifest.csv    header file,person,age,kind (evaluation/manifest.ts)
 *   --out DIR                report.html, summary.json and charts/*.png (default: evaluation-report)
 *   --json FILE              the summary JSON also here
 *   --cache DIR | --no-cache per-photo results by SHA-256 and analysis version (default: .cache/evaluate); an
 *                            interrupted run resumes where it stopped
 *   --workers N              analysis worker threads (default: the machine's cores)
 *   --age-threshold N        the workspace threshold the age outcomes are given at (default 18)
 *   --target-fmr X           false match rate the suggested face-match threshold aims for (default 0.001)
 *   --false-pass-rate X      share of under-age people the suggested age margin may pass (default 0)
 *   --documents              also print each photo on a synthetic ID card and match selfies against the cards
 *
 * Rows of kind `document` (with document_type, birth_date, expiry_date) are photos of identity documents: each is
 * read as an upload and the pipeline would (evaluation/documents.ts) and the summary gains `documents`.
 *
 * Uses the production code: the analysis worker pool, the upload checks and the pipeline's thresholds.
 */
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { AnalysisPool } from '../lib/domain/media/pool';
import { readManifest, ManifestError } from './manifest';
import { measureAll } from './measure';
import { scoresOf, summarize } from './summarize';
import { writeReport } from './report';
import { documentsLine, documentsSection, measureDocuments } from './documents';
import { parseFlags, UsageError } from '../lib/core/cli-flags';

type Args = {
  folder: string;
  out: string;
  json: string | null;
  cache: string | null;
  workers: number;
  ageThreshold: number;
  targetFmr: number;
  falsePass: number;
  documents: boolean;
};

function usage(message: string): never {
  process.stderr.write(
    `${message}\nusage: npm run evaluate -- <folder> [--out DIR] [--json FILE] [--cache DIR | --no-cache] [--workers N] [--age-threshold N] [--target-fmr X] [--false-pass-rate X] [--documents]\n`,
  );
  process.exit(2);
}

function parseArgs(argv: string[]): Args {
  const spec = {
    out: 'evaluation-report',
    json: '',
    cache: path.join('.cache', 'evaluate'),
    'no-cache': false,
    workers: String(Math.max(1, os.availableParallelism())),
    'age-threshold': '18',
    'target-fmr': '0.001',
    'false-pass-rate': '0',
    documents: false,
  };
  let parsed: ReturnType<typeof parseFlags<typeof spec>>;
  try {
    parsed = parseFlags(spec, argv, 1);
  } catch (e) {
    if (e instanceof UsageError) usage(e.message);
    throw e;
  }
  const { flags, words } = parsed;
  const num = (name: keyof typeof flags, min: number, max: number) => {
    const n = Number(flags[name]);
    if (!Number.isFinite(n) || n < min || n > max) usage(`--${name} needs a number from ${min} to ${max}`);
    return n;
  };
  if (!words[0]) usage('no folder given');
  return {
    folder: words[0],
    out: flags.out,
    json: flags.json || null,
    cache: flags['no-cache'] ? null : flags.cache,
    workers: num('workers', 1, 16),
    ageThreshold: num('age-threshold', 1, 99),
    targetFmr: num('target-fmr', 1e-9, 0.5),
    falsePass: num('false-pass-rate', 0, 0.5),
    documents: flags.documents,
  };
}

function progress(done: number, total: number, cached: number, started: number) {
  const width = 30;
  const filled = Math.round((done / total) * width);
  const secs = (Date.now() - started) / 1000;
  const fresh = done - cached;
  const eta = fresh > 0 ? ((total - done) * secs) / fresh : 0;
  const line = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} (${cached} cached) ${secs.toFixed(0)}s${done < total ? `, about ${eta.toFixed(0)}s left` : ''}`;
  if (process.stderr.isTTY) process.stderr.write(`\r${line}${done === total ? '\n' : ''}`);
  else if (done === total || done % 25 === 0) process.stderr.write(line + '\n');
}

const args = parseArgs(process.argv.slice(2));
let rows;
try {
  rows = readManifest(path.resolve(args.folder));
} catch (e) {
  if (e instanceof ManifestError) usage(`manifest: ${e.message}`);
  throw e;
}
const missing = rows.filter((r) => !fs.existsSync(r.path));
if (missing.length) usage(`manifest: ${missing.length} listed files do not exist, e.g. ${missing[0].file}`);

const pool = new AnalysisPool(args.workers);
await pool.ready();
const documents = args.documents ? (await import('../test/helpers/images')).renderDocument : null;
const started = Date.now();
const documentRows = rows.filter((r) => r.document);
rows = rows.filter((r) => !r.document);
process.stderr.write(
  `evaluating ${rows.length} photos${documentRows.length ? ` and ${documentRows.length} document photos` : ''} with ${args.workers} analysis workers\n`,
);
const records = await measureAll(rows, {
  analyze: (bytes, kind) => pool.analyze(bytes, kind),
  cacheDir: args.cache,
  documents: documents ? (portrait) => documents('id_card', 'front', Buffer.from(portrait)) : undefined,
  concurrency: args.workers * 2,
  onProgress: (d, t, c) => progress(d, t, c, started),
});
const documentRecords = await measureDocuments(documentRows, {
  analyze: (bytes, kind) => pool.analyze(bytes, kind),
  onProgress: (d, t) => progress(d, t, 0, started),
});
await pool.close();

const summary = {
  ...summarize(
    records,
    { ageThreshold: args.ageThreshold, targetFmr: args.targetFmr, targetFalsePass: args.falsePass },
    { folder: path.basename(path.resolve(args.folder)) },
  ),
  documents: documentsSection(documentRecords),
};
const written = await writeReport(args.out, summary, scoresOf(records));
if (args.json) {
  fs.mkdirSync(path.dirname(path.resolve(args.json)), { recursive: true });
  fs.writeFileSync(args.json, JSON.stringify(summary, null, 1) + '\n');
  written.push(args.json);
}
const fm = summary.face_match;
const f = (x: number | null) => (x === null ? '–' : `${(x * 100).toFixed(2)}%`);
process.stderr.write(
  `age: n=${summary.age.n} MAE ${summary.age.mae} | under ${args.ageThreshold} passed ${f(summary.age.false_pass_under.rate)} (n=${summary.age.false_pass_under.n}), ${args.ageThreshold}+ referred ${f(summary.age.refer_rate_over.rate)} (n=${summary.age.refer_rate_over.n})\n` +
    summary.age.at_thresholds
      .map(
        (t) =>
          `  at ${t.threshold}: ${t.threshold}+ passed ${f(t.over.passed.rate)} referred ${f(t.over.referred.rate)} failed ${f(t.over.failed.rate)} (n=${t.over.n}) | under ${t.threshold} passed ${t.under.passed.k} of ${t.under.n} (95 % upper bound ${f(t.under.passed_upper95)})\n`,
      )
      .join('') +
    `  range: covers the true age ${f(summary.age.range.coverage.rate)} (n=${summary.age.range.n}), mean width ${summary.age.range.mean_width} years\n` +
    `face match at ${fm.threshold}: FNMR ${f(fm.fnmr)} (${fm.genuine_pairs} genuine pairs), FMR ${f(fm.fmr)} (${fm.impostor_pairs} impostor pairs)\n` +
    (summary.documents.n + summary.documents.invalid_check_digits.n > 0 ? documentsLine(summary.documents) : '') +
    `wrote ${written.map((w) => path.relative(process.cwd(), w)).join(', ')}\n`,
);
process.exit(0);

/**
 * npm run fit:age -- <folder> [--threshold 18] [--quantile 0.95]: derives the age calibration (lib/faces/age.ts,
 * AGE_CALIBRATION) and the age margins (lib/pipeline/thresholds.ts, AGE_MARGINS) from an age-labelled set, the way
 * the committed ones were derived, and prints them as JSON.
 *
 *  - calibration: least squares of the true age on the models' raw estimates (faceres, face-api's age net);
 *    its error is reported by 5-fold cross-validation (seeded folds), never on the photos it was fitted on;
 *  - margins, per band of the calibrated estimate, from the cross-validated errors: `below` is the `quantile` of
 *    how much the estimate exceeded the true age, raised where needed so that no under-`threshold` person of the
 *    set would pass; `above` the same quantile the other way.
 *
 * Reads the per-photo results of npm run evaluate (its cache): run that first on the same folder.
 */
import path from 'node:path';
import { AnalysisPool } from '../lib/media/pool';
import { readManifest } from '../lib/evaluation/manifest';
import { measureAll } from '../lib/evaluation/measure';
import { quantile, round, seeded } from '../lib/evaluation/stats';

const argv = process.argv.slice(2);
const folder = argv.find((a) => !a.startsWith('--'));
if (!folder) throw new Error('usage: npm run fit:age -- <folder> [--threshold 18] [--quantile 0.95]');
const opt = (name: string, d: number) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : d);
const threshold = opt('--threshold', 18);
const q = opt('--quantile', 0.95);
const BANDS = [18, 25, 35, 50, Infinity];

const pool = new AnalysisPool(2);
const rows = readManifest(path.resolve(folder)).filter((r) => r.age !== null && r.kind === 'genuine');
const records = await measureAll(rows, { analyze: (b, k) => pool.analyze(b, k), cacheDir: path.join('.cache', 'evaluate'), concurrency: 4 });
await pool.close();
const data = records
  .filter((r) => r.face?.age_features?.faceres != null && r.face.age_features.face_api != null)
  .map((r) => ({ y: r.age!, x: [1, r.face!.age_features!.faceres!, r.face!.age_features!.face_api!] }));

/** Least squares by the normal equations (3 unknowns). */
function fit(d: typeof data): number[] {
  const k = d[0].x.length;
  const A = Array.from({ length: k }, () => new Array(k + 1).fill(0));
  for (const { x, y } of d) for (let i = 0; i < k; i++) {
    for (let j = 0; j < k; j++) A[i][j] += x[i] * x[j];
    A[i][k] += x[i] * y;
  }
  for (let c = 0; c < k; c++) {
    const p = A.slice(c).reduce((best, row, i) => (Math.abs(row[c]) > Math.abs(A[best][c]) ? i + c : best), c);
    [A[c], A[p]] = [A[p], A[c]];
    for (let r = 0; r < k; r++) if (r !== c) {
      const f = A[r][c] / A[c][c];
      for (let j = c; j <= k; j++) A[r][j] -= f * A[c][j];
    }
  }
  return A.map((row, i) => row[k] / row[i]);
}
const predict = (w: number[], x: number[]) => Math.min(100, Math.max(1, x.reduce((s, v, i) => s + v * w[i], 0)));

const rnd = seeded(7);
const fold = data.map(() => Math.floor(rnd() * 5));
const cv = data.map(() => 0);
for (let f = 0; f < 5; f++) {
  const w = fit(data.filter((_, i) => fold[i] !== f));
  data.forEach((d, i) => {
    if (fold[i] === f) cv[i] = predict(w, d.x);
  });
}
const w = fit(data);
const raw = data.map((d) => d.x[1]);
const mae = (e: number[]) => round(e.reduce((s, v) => s + Math.abs(v), 0) / e.length, 2);
const errs = data.map((d, i) => cv[i] - d.y);

let lower = 0;
const margins = BANDS.map((upTo) => {
  const idx = data.map((_, i) => i).filter((i) => cv[i] >= lower && cv[i] < upTo);
  const over = idx.map((i) => errs[i]);
  let below = idx.length ? Math.max(0, quantile(over, q)) : 10;
  // No under-threshold person of the set may pass: estimate − below must stay under the threshold for each.
  for (const i of idx) if (data[i].y < threshold) below = Math.max(below, cv[i] - threshold + 0.5);
  const above = idx.length ? Math.max(0, quantile(idx.map((i) => -errs[i]), q)) : 10;
  const band = { upTo, below: Math.ceil(below), above: Math.ceil(above), n: idx.length };
  lower = upTo;
  return band;
});

console.log(
  JSON.stringify(
    {
      n: data.length,
      calibration: { intercept: round(w[0], 4), weights: [round(w[1], 4), round(w[2], 4)], cv_mae: mae(errs) },
      raw_faceres_mae: mae(data.map((d, i) => raw[i] - d.y)),
      cv_mae_by_true_band: [0, 13, 18, 25, 35, 50, 65].map((lo, j, a) => {
        const hi = a[j + 1] ?? 200;
        const e = data.flatMap((d, i) => (d.y >= lo && d.y < hi ? [errs[i]] : []));
        return { band: `${lo}-${hi - 1}`, n: e.length, mae: e.length ? mae(e) : null, bias: e.length ? round(e.reduce((s, v) => s + v, 0) / e.length, 2) : null };
      }),
      margins,
    },
    null,
    1,
  ),
);
process.exit(0);

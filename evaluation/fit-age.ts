/**
 * npm run fit:age -- <folder> [--write] [--json FILE] [--alpha 0.01] [--beta 0.02] [--margin 1] [--upper-margin 2] [--workers N]
 *   [--cached-only] [--description true|false] [--scale log|years] [--ridge X]:
 * fits the age calibration (lib/domain/faces/age-calibration.json) and the age ranges (lib/domain/thresholds/age-ranges.json) on an
 * age-labelled set, the way the committed ones were fitted (evaluation/age-fit.ts; docs/accuracy.md), and
 * prints what they do, measured by nested cross-validation (never on the faces a figure's fit saw):
 *
 *  - the candidate models (the committed one, or the one --description, --scale and --ridge choose; each group of
 *    views alone or left out; without the face description; on the other scale; other penalties): mean absolute
 *    error, and at 18, 21 and 25 the adults passed and the under-threshold people passed;
 *  - the chosen calibration (the committed groups of views), its error by true-age band;
 *  - at 18, 21 and 25: adults passed / referred / failed, minors passed with the one-sided 95 % Clopper-Pearson
 *    upper bound, and the range's coverage and mean width; the same for other margins;
 *  - the range table.
 *
 * With --write it writes both files (the calibration and the table fitted on the whole set); commit them. Reads
 * and fills the evaluator's per-photo cache (.cache/evaluate), so after npm run evaluate on the same folder the
 * fit needs no analysis; --cached-only fits on the photos the cache already holds (an evaluation still running
 * or interrupted) and says how many of the set that is.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AnalysisPool } from '../lib/domain/media/pool';
import { readManifest } from './manifest';
import { isCached, measureAll } from './measure';
import { AGE_CALIBRATION, type AgeCalibration } from '../lib/domain/faces/age';
import { AGE_RANGES } from '../lib/domain/thresholds/thresholds';
import { AGE_VIEWS, type AgeView } from '../lib/domain/faces/age-views';
import {
  crossValidatedEstimates,
  decisionsAt,
  DEFAULT_RANGE_OPTIONS,
  errorByBand,
  fitCalibration,
  fitRanges,
  measurable,
  nestedCrossValidation,
  rangeFigures,
  type Judged,
  specOf,
  type AgeModelSpec,
  type Labelled,
  type RangeOptions,
} from './age-fit';
import { parseFlags, UsageError } from '../lib/core/cli-flags';

const usage =
  'usage: npm run fit:age -- <folder> [--write] [--json FILE] [--alpha 0.01] [--beta 0.02] [--margin 1] [--upper-margin 2] [--workers N] [--cached-only] [--description true|false] [--scale log|years] [--ridge X] [--sex true|false] [--balance true|false] [--by-group true|false] [--sex-ranges true|false]\n';
// The valued flags default to '' (not given: the committed fit's choice); --write and --cached-only are switches.
const VALUED = {
  json: '',
  alpha: '',
  beta: '',
  margin: '',
  'upper-margin': '',
  workers: '',
  description: '',
  scale: '',
  ridge: '',
  sex: '',
  balance: '',
  'by-group': '',
  'sex-ranges': '',
};
let parsed: ReturnType<typeof parseFlags<typeof VALUED & { write: boolean; 'cached-only': boolean }>>;
try {
  parsed = parseFlags({ ...VALUED, write: false, 'cached-only': false }, process.argv.slice(2), 1);
} catch (e) {
  if (!(e instanceof UsageError)) throw e;
  process.stderr.write(`${e.message}\n${usage}`);
  process.exit(2);
}
const folder = parsed.words[0];
const value = (name: `--${keyof typeof VALUED}`) => parsed.flags[name.slice(2) as keyof typeof VALUED] || undefined;
const bool = (name: Parameters<typeof value>[0]) => ['true', 'false', undefined].includes(value(name));
if (
  !folder ||
  !bool('--description') ||
  !bool('--sex') ||
  !bool('--balance') ||
  !bool('--by-group') ||
  !bool('--sex-ranges') ||
  !['log', 'years', undefined].includes(value('--scale')) ||
  (value('--ridge') !== undefined && !(Number(value('--ridge')) >= 0))
) {
  process.stderr.write(usage);
  process.exit(2);
}
const opt = (name: Parameters<typeof value>[0], d: number) => (value(name) === undefined ? d : Number(value(name)));
const flag = (name: Parameters<typeof value>[0], d: boolean) =>
  value(name) === undefined ? d : value(name) === 'true';
const options: RangeOptions = {
  ...DEFAULT_RANGE_OPTIONS,
  byGroup: flag('--by-group', !!AGE_RANGES.by_group),
  byReadSex: flag('--sex-ranges', !!AGE_RANGES.by_read_sex),
  alpha: opt('--alpha', 0.01),
  beta: opt('--beta', 0.02),
  margin: opt('--margin', DEFAULT_RANGE_OPTIONS.margin),
  upperMargin: opt('--upper-margin', DEFAULT_RANGE_OPTIONS.upperMargin ?? DEFAULT_RANGE_OPTIONS.margin),
};
const jsonFile = value('--json') ?? null;
const REPORT_AT = [18, 21, 25];

const cacheDir = path.join('.cache', 'evaluate');
const labelled = readManifest(path.resolve(folder)).filter((r) => r.age !== null && r.kind === 'genuine');
const rows = parsed.flags['cached-only'] ? labelled.filter((r) => isCached(r, cacheDir)) : labelled;
// No analysis worker is started when the cache holds every photo.
const pool = rows.every((r) => isCached(r, cacheDir))
  ? null
  : new AnalysisPool(opt('--workers', Math.max(1, os.availableParallelism())));
const records = await measureAll(rows, { analyze: (b, k) => pool!.analyze(b, k), cacheDir, concurrency: 4 });
await pool?.close();
const points: Labelled[] = measurable(
  records
    .filter((r) => r.face?.age_features)
    .map((r) => ({
      truth: r.age!,
      features: r.face!.age_features!,
      description: r.face!.embedding,
      sex: r.sex ?? null,
      group: r.group ?? null,
    })),
  AGE_CALIBRATION.groups,
);

/** The model fitted: the committed one's shape, or what the flags say. */
const committed = specOf(AGE_CALIBRATION);
const chosen: AgeModelSpec = {
  groups: committed.groups,
  description: value('--description') === undefined ? committed.description : value('--description') === 'true',
  scale: (value('--scale') as AgeModelSpec['scale']) ?? committed.scale,
  ridge: opt('--ridge', committed.ridge ?? 1e-6),
  sex: flag('--sex', !!committed.sex),
  balance: flag('--balance', !!committed.balance),
};

/**
 * Candidate models: the chosen one; each group of views alone, each left out, more views, no mirror views; without
 * (or with) the face description; on the other scale; with other penalties.
 */
function candidates(): { name: string; spec: AgeModelSpec }[] {
  const g = chosen.groups;
  const label = (gs: AgeModelSpec['groups']) => gs.map((x) => x.join('+')).join(' | ');
  const tail = (s: AgeModelSpec) => `${s.description ? ' + description' : ''}, ${s.scale}, ridge ${s.ridge}`;
  const out = [{ name: `chosen: ${label(g)}${tail(chosen)}`, spec: chosen }];
  const withGroups = (groups: AgeModelSpec['groups']) => ({ ...chosen, groups });
  if (g.length > 1) for (const x of g) out.push({ name: `alone: ${x.join('+')}`, spec: withGroups([x]) });
  if (g.length > 2)
    g.forEach((_, i) =>
      out.push({ name: `without ${g[i].join('+')}`, spec: withGroups(g.filter((__, j) => j !== i)) }),
    );
  // Networks the set's analyses measured beyond the committed ones (an analysis that ran more views), added.
  const used = new Set(g.flat());
  for (const net of ['faceres', 'faceres_deep', 'gear'] as const) {
    const extra = (Object.keys(AGE_VIEWS) as AgeView[]).filter((v) => AGE_VIEWS[v].net === net && !used.has(v));
    if (extra.length) out.push({ name: `plus ${extra.join('+')}`, spec: withGroups([...g, extra]) });
  }
  const plain = g.map((x) => x.filter((v) => !v.endsWith('_mirror'))).filter((x) => x.length);
  if (label(plain) !== label(g)) out.push({ name: `no mirror views: ${label(plain)}`, spec: withGroups(plain) });
  const other = { ...chosen, description: !chosen.description, ridge: chosen.description ? 1e-6 : 0.01 };
  out.push({ name: `${chosen.description ? 'without' : 'with'} the face description${tail(other)}`, spec: other });
  const scaled = { ...chosen, scale: chosen.scale === 'log' ? 'years' : 'log' } as AgeModelSpec;
  out.push({ name: `on the other scale${tail(scaled)}`, spec: scaled });
  if (chosen.description)
    for (const ridge of [0.003, 0.03, 0.1].filter((r) => r !== chosen.ridge))
      out.push({ name: `ridge ${ridge}`, spec: { ...chosen, ridge } });
  // Only models whose every group was measured on (nearly) every face of the set.
  const measured = (x: AgeModelSpec['groups'][number]) =>
    points.filter((p) => x.some((v) => typeof p.features[v] === 'number')).length >= 0.9 * points.length;
  return out.filter((c) => c.spec.groups.every(measured));
}

const pct = (r: { rate: number | null }) => (r.rate === null ? '–' : `${(r.rate * 100).toFixed(1)} %`);
const summary = (judged: Judged[]) => ({
  mae: Math.round((judged.reduce((s, j) => s + Math.abs(j.estimate - j.truth), 0) / judged.length) * 100) / 100,
  by_band: errorByBand(
    judged.map((j) => j.truth),
    judged.map((j) => j.estimate),
  ),
  at: REPORT_AT.map((t) => decisionsAt(judged, t)),
  range: rangeFigures(judged),
});

const out = {
  set: {
    folder: path.basename(path.resolve(folder)),
    photos_with_age: labelled.length,
    measured: rows.length,
    with_estimate: points.length,
    under_18: points.filter((p) => p.truth < 18).length,
    '18_25': points.filter((p) => p.truth >= 18 && p.truth <= 25).length,
  },
  options,
  candidates: candidates().map((c) => ({ name: c.name, ...summary(nestedCrossValidation(points, c.spec, options)) })),
  margins: [0, 0.5, 1, 2].map((margin) => ({
    margin,
    ...summary(nestedCrossValidation(points, chosen, { ...options, margin })),
  })),
  calibration: null as null | AgeCalibration,
  ranges: null as null | ReturnType<typeof fitRanges>,
};
const cv = crossValidatedEstimates(points, chosen);
const fitted = fitCalibration(points, chosen);
const nested = out.margins.find((m) => m.margin === options.margin) ?? {
  margin: options.margin,
  ...summary(nestedCrossValidation(points, chosen, options)),
};
const fittedOn = `${out.set.folder}: ${points.length} age-labelled faces aged ${Math.min(...points.map((p) => p.truth))}-${Math.max(...points.map((p) => p.truth))} (npm run fit:age)`;
out.calibration = {
  fitted_on: fittedOn,
  views: AGE_CALIBRATION.views,
  groups: fitted.groups,
  scale: fitted.scale,
  intercept: Math.round(fitted.intercept * 1e6) / 1e6,
  weights: fitted.weights.map((w) => Math.round(w * 1e6) / 1e6),
  description: fitted.description
    ? {
        weights: fitted.description.weights.map((w) => Math.round(w * 1e6) / 1e6),
        mean: fitted.description.mean.map((m) => Math.round(m * 1e6) / 1e6),
        bounds: fitted.description.bounds!.map((b) => Math.round(b * 1e6) / 1e6) as [number, number],
      }
    : null,
  sex: fitted.sex ? { weights: fitted.sex.weights.map((w) => Math.round(w * 1e6) / 1e6) as [number, number] } : null,
  input_bounds: fitted.input_bounds?.map((b) => b.map((v) => Math.round(v * 100) / 100) as [number, number]) ?? null,
  output_bounds: (fitted.output_bounds?.map((v) => Math.round(v * 100) / 100) as [number, number] | undefined) ?? null,
  ridge: fitted.ridge,
  balanced: fitted.balanced,
  cv_mae: Math.round((cv.reduce((s, e, i) => s + Math.abs(e - points[i].truth), 0) / cv.length) * 100) / 100,
};
out.ranges = fitRanges(
  points.map((p) => p.truth),
  cv,
  options,
  fittedOn,
  points,
  points.map((p) => p.features.male),
);

const lines: string[] = [];
if (rows.length < labelled.length)
  lines.push(`only the ${rows.length} of ${labelled.length} age-labelled photos already measured (--cached-only)`);
lines.push(
  `${out.set.folder}: ${points.length} faces with an age and an estimate (${out.set.under_18} under 18, ${out.set['18_25']} aged 18-25)`,
);
lines.push(
  `ranges: at most ${options.alpha * 100} % of the people under a threshold pass it, at most ${options.beta * 100} % of those at or over it fail it, margin ${options.margin} years on the lower end, ${options.upperMargin} on the upper (split-conformal cuts)`,
);
lines.push(
  '',
  'candidates (nested 5-fold cross-validation): MAE | at 18, 21, 25: adults passed, under-threshold people passed',
);
for (const c of out.candidates)
  lines.push(
    `  ${c.mae.toFixed(2)} | ${c.at.map((d) => `${d.threshold}: ${pct(d.over.passed)}, ${d.under.passed.k}/${d.under.n}`).join('; ')} | ${c.name}`,
  );
const sum = `${out.calibration.intercept} + ${out.calibration.weights.map((w, i) => `${w}·mean(${fitted.groups[i].join(', ')})`).join(' + ')}${fitted.description ? ` + Σ ${fitted.description.weights.length} weights·(description − mean)` : ''}`;
lines.push(
  '',
  `calibration: age = ${fitted.scale === 'log' ? `exp(${sum})` : sum}; cross-validated MAE ${out.calibration.cv_mae}`,
);
lines.push('', `nested cross-validation, margin ${nested.margin}: MAE ${nested.mae}; error by true age (MAE / bias):`);
lines.push('  ' + nested.by_band.map((b) => `${b.band} (n=${b.n}) ${b.mae ?? '–'} / ${b.bias ?? '–'}`).join('; '));
for (const d of nested.at) {
  lines.push(
    `  at ${d.threshold}: ${d.threshold}+ (n=${d.over.n}) passed ${pct(d.over.passed)}, referred ${pct(d.over.referred)}, failed ${pct(d.over.failed)} | under ${d.threshold} (n=${d.under.n}) passed ${d.under.passed.k} (${pct(d.under.passed)}, 95 % upper bound ${d.under.passed_upper95 === null ? '–' : `${(d.under.passed_upper95 * 100).toFixed(2)} %`}), failed ${pct(d.under.failed)}`,
  );
}
lines.push(
  `  range: covers the true age ${pct(nested.range.coverage)} (n=${nested.range.n}), mean width ${nested.range.mean_width} years`,
);
// By the set's sex and group labels (when it has them), at 18: the same nested cross-validation, face by face.
const judged = nestedCrossValidation(points, chosen, options);
for (const column of ['sex', 'group'] as const) {
  const labels = [...new Set(points.map((p) => p[column]).filter((l): l is string => !!l))].sort();
  if (labels.length === 0) continue;
  const rows = labels.map((label) => {
    const idx = points.map((_, i) => i).filter((i) => points[i][column] === label);
    const over = idx.filter((i) => judged[i].truth >= 18);
    const under = idx.filter((i) => judged[i].truth < 18);
    const passed = (ix: number[]) => ix.filter((i) => judged[i].min >= 18).length;
    const bias = over.reduce((s, i) => s + judged[i].estimate - judged[i].truth, 0) / Math.max(1, over.length);
    return {
      label,
      adults: over.length,
      passed: passed(over),
      minors: under.length,
      minors_passed: passed(under),
      bias,
    };
  });
  const rates = rows.map((r) => r.passed / Math.max(1, r.adults));
  lines.push(
    `  at 18 by ${column} (lowest / highest adults passed ${(Math.min(...rates) / Math.max(...rates)).toFixed(2)}): ` +
      rows
        .map(
          (r) =>
            `${r.label} ${r.passed}/${r.adults} (${((100 * r.passed) / Math.max(1, r.adults)).toFixed(1)} %), minors ${r.minors_passed}/${r.minors}, adults' bias ${r.bias.toFixed(1)}`,
        )
        .join('; '),
  );
}
lines.push(
  '',
  'lower-end margin (years), upper-end margin fixed | at 18: adults passed, minors passed | coverage, mean width',
);
for (const m of out.margins)
  lines.push(
    `  ${m.margin} | ${pct(m.at[0].over.passed)}, ${m.at[0].under.passed.k}/${m.at[0].under.n} | ${pct(m.range.coverage)}, ${m.range.mean_width}`,
  );
lines.push('', 'range table: threshold → pass when the estimate is at least / fail when it is under');
const ts = [...new Set([...out.ranges.lower.map((r) => r[0]), ...out.ranges.upper.map((r) => r[0])])].sort(
  (a, b) => a - b,
);
lines.push(
  '  ' +
    ts
      .map(
        (t) =>
          `${t}: ${out.ranges!.lower.find((r) => r[0] === t)?.[1] ?? '–'} / ${out.ranges!.upper.find((r) => r[0] === t)?.[1] ?? '–'}`,
      )
      .join('; '),
);
const bySex = out.ranges.by_read_sex;
if (bySex)
  for (const sex of ['female', 'male'] as const)
    lines.push(
      `  faces read as ${sex === 'female' ? 'women' : 'men'} (${bySex[sex].n}), pass when at least: ` +
        bySex[sex].lower.map(([t, cut]) => `${t}: ${cut}`).join('; '),
    );
console.log(lines.join('\n'));

if (jsonFile) fs.writeFileSync(jsonFile, JSON.stringify(out, null, 1) + '\n');
if (parsed.flags.write) {
  const root = path.resolve(import.meta.dirname, '..');
  fs.writeFileSync(
    path.join(root, 'lib', 'domain', 'faces', 'age-calibration.json'),
    JSON.stringify(out.calibration, null, 1) + '\n',
  );
  // One row of the table a line, so a refit reads as a diff.
  const rowsOf = (xs: unknown[]) => '[\n' + xs.map((x) => '  ' + JSON.stringify(x)).join(',\n') + '\n ]';
  const { lower, upper, confidence, ...head } = out.ranges;
  const table = JSON.stringify(head, null, 1).replace(
    /\n}$/,
    `,\n "lower": ${rowsOf(lower)},\n "upper": ${rowsOf(upper)},\n "confidence": ${rowsOf(confidence)}\n}`,
  );
  fs.writeFileSync(path.join(root, 'lib', 'domain', 'thresholds', 'age-ranges.json'), table + '\n');
  console.log(
    '\nwrote lib/domain/faces/age-calibration.json and lib/domain/thresholds/age-ranges.json (rebuild and restart to use them)',
  );
}
process.exit(0);

/**
 * The evaluation report: one self-contained HTML page (inline SVG charts, inline CSS, no script, no CDN), a PNG
 * of each chart (sharp renders the same SVG) and the JSON summary. Aggregates only: no photo, file name or
 * label of the set is written, so a report on a set whose licence forbids redistribution can be published.
 */
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { bars, det, histogram, scatter, type Chart } from './charts';
import type { Rate } from './stats';
import { lowest } from './stats';
import type { Scores, Summary } from './summarize';
import { documentsHtml, type DocumentsSection } from './documents';

const pct = (r: Rate | null | undefined) =>
  r && r.rate !== null ? `${(r.rate * 100).toFixed(r.rate < 0.01 && r.rate > 0 ? 2 : 1)} %` : '–';
const ci = (r: Rate | null | undefined) =>
  r?.ci95 ? `${(r.ci95.low * 100).toFixed(1)}–${(r.ci95.high * 100).toFixed(1)} %` : '–';
const rateCell = (r: Rate | null | undefined) =>
  r ? `${pct(r)} <span class="ci">(${r.k}/${r.n}; 95 % CI ${ci(r)})</span>` : '–';
const esc = (s: unknown) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The charts of a summary. Genuine/impostor similarity values are re-derived from the DET curve's inputs. */
export function charts(s: Summary, scores: Scores): Chart[] {
  const out: Chart[] = [];
  const a = s.age;
  out.push(
    scatter(
      'age-scatter',
      `Estimated against true age (n=${a.n})`,
      scores.agePoints.map((p) => ({ x: p.truth, y: p.estimate })),
      {
        xLabel: 'true age (years)',
        yLabel: 'estimated age (years)',
        min: 0,
        max: 90,
        diagonal: true,
        hlines: [{ at: a.outcomes.threshold, label: `threshold ${a.outcomes.threshold}` }],
      },
    ),
  );
  out.push(
    bars(
      'age-mae-by-band',
      'Age: mean absolute error by true age band (95 % bootstrap CI)',
      a.by_band
        .filter((b) => b.n > 0)
        .map((b) => ({ label: b.band, value: b.mae ?? 0, ci: b.mae_ci95, note: `n=${b.n}` })),
      { yLabel: 'MAE (years)' },
    ),
  );
  const o = a.outcomes;
  out.push(
    bars(
      'age-outcomes',
      `Outcomes at ${o.threshold}: under-age people passed, adults referred or failed`,
      [
        {
          label: `under ${o.threshold}: pass`,
          value: o.under.pass.rate ?? 0,
          ci: o.under.pass.ci95,
          note: `n=${o.under.n}`,
        },
        { label: `under: refer`, value: o.under.refer.rate ?? 0, ci: o.under.refer.ci95 },
        { label: `under: fail`, value: o.under.fail.rate ?? 0, ci: o.under.fail.ci95 },
        { label: `${o.threshold}+: pass`, value: o.over.pass.rate ?? 0, ci: o.over.pass.ci95, note: `n=${o.over.n}` },
        { label: `${o.threshold}+: refer`, value: o.over.refer.rate ?? 0, ci: o.over.refer.ci95 },
        { label: `${o.threshold}+: fail`, value: o.over.fail.rate ?? 0, ci: o.over.fail.ci95 },
      ],
      { yLabel: 'share of the group', max: 1, percent: true },
    ),
  );
  const fm = s.face_match;
  const lo = lowest([0], scores.impostor, scores.genuine);
  out.push(
    histogram(
      'face-match-histogram',
      `Face match: similarity of genuine and impostor pairs`,
      [
        { label: 'same person', values: scores.genuine },
        { label: 'different people', values: scores.impostor },
      ],
      {
        xLabel: 'cosine similarity',
        min: Math.floor(lo * 10) / 10,
        max: 1,
        bins: 60,
        markers: [{ at: fm.threshold, label: `threshold ${fm.threshold}` }],
      },
    ),
  );
  const ops = [{ fmr: fm.fmr ?? 0, fnmr: fm.fnmr ?? 0, label: `at ${fm.threshold}` }];
  if (fm.suggested_threshold.suggested !== null && 'at' in fm.suggested_threshold && fm.suggested_threshold.at) {
    ops.push({
      fmr: fm.suggested_threshold.at.fmr.rate ?? 0,
      fnmr: fm.suggested_threshold.at.fnmr.rate ?? 0,
      label: `suggested ${fm.suggested_threshold.suggested}`,
    });
  }
  out.push(det('face-match-det', 'Face match: detection error trade-off (selfie against selfie)', fm.det, ops));
  if (fm.selfie_vs_document && scores.docGenuine && scores.docImpostor) {
    const d = fm.selfie_vs_document;
    out.push(
      histogram(
        'face-match-document-histogram',
        'Selfie against another photo printed on an ID card',
        [
          { label: 'same person', values: scores.docGenuine },
          { label: 'different people', values: scores.docImpostor },
        ],
        {
          xLabel: 'cosine similarity',
          min: Math.floor(lowest([0], scores.docImpostor) * 10) / 10,
          max: 1,
          bins: 60,
          markers: [{ at: d.threshold, label: `threshold ${d.threshold}` }],
        },
      ),
    );
  }
  const lv = s.liveness;
  const kinds = Object.keys(lv.attacks);
  out.push(
    histogram(
      'replay-score',
      'Screen/print pattern score: genuine photos and attacks',
      [
        { label: 'genuine', values: scores.replay.genuine ?? [] },
        ...kinds.map((k) => ({ label: k, values: scores.replay[k] ?? [] })),
      ],
      {
        xLabel: 'replay score (log10)',
        min: -0.5,
        max: 3,
        bins: 50,
        markers: [{ at: Math.log10(lv.thresholds.replay_score), label: `threshold ${lv.thresholds.replay_score}` }],
      },
    ),
  );
  out.push(
    histogram(
      'moire-score',
      'Screen moiré score: genuine photos and attacks',
      [
        { label: 'genuine', values: scores.moire.genuine ?? [] },
        ...kinds.map((k) => ({ label: k, values: scores.moire[k] ?? [] })),
      ],
      {
        xLabel: 'moiré score',
        min: 0,
        max: 80,
        bins: 40,
        markers: [{ at: lv.thresholds.moire_score, label: `threshold ${lv.thresholds.moire_score}` }],
      },
    ),
  );
  out.push(
    histogram(
      'liveness-score',
      "Human's passive liveness score: genuine photos and attacks",
      [
        { label: 'genuine', values: scores.live.genuine ?? [] },
        ...kinds.map((k) => ({ label: k, values: scores.live[k] ?? [] })),
      ],
      {
        xLabel: 'liveness score',
        min: 0,
        max: 1,
        bins: 40,
        markers: [{ at: lv.thresholds.liveness_floor, label: `floor ${lv.thresholds.liveness_floor}` }],
      },
    ),
  );
  const up = s.upload;
  out.push(
    bars(
      'upload-refusals',
      `Upload checks: genuine photos refused, by code (n=${up.genuine_photos})`,
      Object.entries(up.refused_by_code).map(([code, r]) => ({
        label: code.replace(/^FACE_|^IMAGE_/, ''),
        value: r.rate ?? 0,
        ci: r.ci95,
        note: `${r.k}`,
      })),
      { yLabel: 'share of genuine photos', percent: true },
    ),
  );
  return out;
}

/** The summary, with the documents section when the set has document photos (evaluation/documents.ts). */
type Report = Summary & { documents?: DocumentsSection | null };

const groupRate = (r: { k: number; n: number; rate: number | null }) =>
  r.rate === null ? `– (0 of 0)` : `${(r.rate * 100).toFixed(1)} % (${r.k} of ${r.n})`;

function html(s: Report, cs: Chart[]): string {
  const a = s.age;
  const fm = s.face_match;
  const lv = s.liveness;
  const fig = (id: string) => {
    const c = cs.find((x) => x.id === id);
    return c
      ? `<figure>${c.svg}<figcaption><a href="charts/${c.id}.png">${esc(c.title)} (PNG)</a></figcaption></figure>`
      : '';
  };
  const sug = fm.suggested_threshold;
  const doc = fm.selfie_vs_document;
  const m = a.margin_for_false_pass;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Open Verify: evaluation report</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:980px;margin:2rem auto;padding:0 1rem;color:#222}table{border-collapse:collapse;margin:.5rem 0 1rem}td,th{border:1px solid #ccc;padding:.25rem .5rem;text-align:left;vertical-align:top}th{background:#f4f4f4}.ci{color:#666;font-size:.85em}figure{margin:1rem 0}svg{max-width:100%;height:auto;border:1px solid #eee}code{background:#f4f4f4;padding:0 .2rem}.note{color:#555}</style></head><body>
<h1>Evaluation report</h1>
<p>Analysis <code>${esc(s.analysis_version)}</code>, ${esc(s.generated_at)}. ${s.dataset.photos} photos (${Object.entries(
    s.dataset.by_kind,
  )
    .map(([k, n]) => `${n} ${esc(k)}`)
    .join(
      ', ',
    )}), ${s.dataset.people} labelled people, ${s.dataset.with_age} with an age; ${s.dataset.without_face} without a usable face. ${s.upload.padded_to_minimum} genuine photos were smaller than the upload minimum (320x240) and were centred on a canvas of that size (never scaled). Aggregates only: no photo or label of the set is in this report.</p>
<h2>Age estimation</h2>
<table><tr><th>photos with an age and an estimate</th><td>${a.n}${a.no_estimate ? ` (${a.no_estimate} more without a usable face)` : ''}</td></tr>
<tr><th>mean absolute error</th><td>${a.mae ?? '–'} years <span class="ci">(95 % bootstrap CI ${a.mae_ci95 ? `${a.mae_ci95.low}–${a.mae_ci95.high}` : '–'})</span>; bias ${a.bias ?? '–'}</td></tr>
<tr><th>under ${a.outcomes.threshold} passed (false pass)</th><td>${rateCell(a.false_pass_under)}</td></tr>
<tr><th>${a.outcomes.threshold} or over referred to a person</th><td>${rateCell(a.refer_rate_over)}</td></tr>
<tr><th>${a.outcomes.threshold} or over failed</th><td>${rateCell(a.fail_rate_over)}</td></tr>
<tr><th>margin for a false-pass rate ≤ ${m.target}</th><td>${m.suggested === null ? `not suggested: ${esc(m.refused)}` : `${m.suggested} years below the estimate: under-age passed ${rateCell('false_pass_at_margin' in m ? m.false_pass_at_margin : null)}, 95 % upper bound ${'upper_bound_false_pass_95' in m ? m.upper_bound_false_pass_95 : '–'}; adults not passed ${rateCell('adults_not_passed_at_margin' in m ? m.adults_not_passed_at_margin : null)}`}</td></tr></table>
<table><tr><th>threshold</th><th>at or over it: passed</th><th>referred</th><th>failed</th><th>under it: passed (one-sided 95 % Clopper-Pearson upper bound)</th><th>referred</th><th>failed</th></tr>${a.at_thresholds.map((t) => `<tr><td>${t.threshold}</td><td>${rateCell(t.over.passed)}</td><td>${rateCell(t.over.referred)}</td><td>${rateCell(t.over.failed)}</td><td>${rateCell(t.under.passed)} <span class="ci">upper bound ${t.under.passed_upper95 === null ? '–' : `${(t.under.passed_upper95 * 100).toFixed(1)} %`}</span></td><td>${rateCell(t.under.referred)}</td><td>${rateCell(t.under.failed)}</td></tr>`).join('')}</table>
<table><tr><th>true age</th><th>n</th><th>MAE (95 % CI)</th><th>bias</th><th>range covers the true age</th><th>mean range width</th></tr>${a.by_band.map((b, i) => `<tr><td>${b.band}</td><td>${b.n}</td><td>${b.mae ?? '–'} <span class="ci">${b.mae_ci95 ? `(${b.mae_ci95.low}–${b.mae_ci95.high})` : ''}</span></td><td>${b.bias ?? '–'}</td><td>${pct(a.range.by_band[i]?.coverage)}</td><td>${a.range.by_band[i]?.mean_width ?? '–'}</td></tr>`).join('')}<tr><th>all</th><td>${a.n}</td><td>${a.mae ?? '–'}</td><td>${a.bias ?? '–'}</td><td>${rateCell(a.range.coverage)}</td><td>${a.range.mean_width ?? '–'} years</td></tr></table>
${
  a.by_group.length
    ? `<h3>By group, at ${a.outcomes.threshold}</h3>
<table><tr><th>column</th><th>label</th><th>${a.outcomes.threshold} or over: passed</th><th>under ${a.outcomes.threshold}: passed (one-sided 95 % upper bound)</th><th>MAE</th><th>bias</th></tr>${a.by_group.map((g) => `<tr><td>${esc(g.column)}</td><td>${esc(g.label)}</td><td>${groupRate(g.over.passed)}</td><td>${groupRate(g.under.passed)} <span class="ci">upper bound ${g.under.passed.upper95 === null ? '–' : `${(g.under.passed.upper95 * 100).toFixed(1)} %`}</span></td><td>${g.mae ?? '–'}</td><td>${g.bias ?? '–'}</td></tr>`).join('')}</table>
<table><tr><th>column</th><th>lowest label's adults passed over the highest's</th><th>highest share of under-age people passed in a label</th></tr>${a.fairness.map((f) => `<tr><td>${esc(f.column)}</td><td>${f.lowest_to_highest_adults_passed ?? '–'}${f.lowest ? ` <span class="ci">(${esc(f.lowest)} / ${esc(f.highest ?? '')})</span>` : ''}</td><td>${f.max_minors_passed_rate === null ? '–' : `${(f.max_minors_passed_rate * 100).toFixed(1)} %`}</td></tr>`).join('')}</table>`
    : ''
}
${fig('age-scatter')}${fig('age-mae-by-band')}${fig('age-outcomes')}
<h2>Face match</h2>
<table><tr><th></th><th>selfie against selfie</th>${doc ? '<th>selfie against a printed ID card</th>' : ''}</tr>
<tr><th>threshold (production)</th><td>${fm.threshold}</td>${doc ? `<td>${doc.threshold}</td>` : ''}</tr>
<tr><th>genuine pairs / impostor pairs</th><td>${fm.genuine_pairs} / ${fm.impostor_pairs}</td>${doc ? `<td>${doc.genuine_pairs} / ${doc.impostor_pairs}</td>` : ''}</tr>
<tr><th>false non-match rate</th><td>${rateCell(fm.fnmr_detail)}</td>${doc ? `<td>${rateCell(doc.fnmr_detail)}</td>` : ''}</tr>
<tr><th>false match rate</th><td>${rateCell(fm.fmr_detail)}</td>${doc ? `<td>${rateCell(doc.fmr_detail)}</td>` : ''}</tr>
<tr><th>genuine similarity</th><td>median ${fm.genuine.median ?? '–'}, min ${fm.genuine.min ?? '–'}</td>${doc ? `<td>median ${doc.genuine.median ?? '–'}, min ${doc.genuine.min ?? '–'}</td>` : ''}</tr>
<tr><th>impostor similarity</th><td>median ${fm.impostor.median ?? '–'}, max ${fm.impostor.max ?? '–'}</td>${doc ? `<td>median ${doc.impostor.median ?? '–'}, max ${doc.impostor.max ?? '–'}</td>` : ''}</tr>
<tr><th>threshold for FMR ≤ ${sug.target_fmr}</th><td colspan="2">${sug.suggested === null ? `not suggested: ${esc(sug.refused)}` : `${sug.suggested}: FNMR ${'at' in sug && sug.at ? rateCell(sug.at.fnmr) : '–'}, FMR ${'at' in sug && sug.at ? rateCell(sug.at.fmr) : '–'}`}</td></tr></table>
<p class="note">${esc(fm.note)}</p>
${fig('face-match-histogram')}${fig('face-match-det')}${fig('face-match-document-histogram')}
<h2>Liveness and presentation attacks (passive, one photo)</h2>
<table><tr><th>genuine photos falsely rejected</th><td>${rateCell(lv.genuine.false_rejects)}: pattern score ${pct(lv.genuine.by_signal.presentation_attack)}, liveness floor ${pct(lv.genuine.by_signal.liveness_floor)}</td></tr>
${Object.entries(lv.attacks)
  .map(
    ([k, v]) =>
      `<tr><th>${esc(k)}: stopped (refused at upload or caught)</th><td>${rateCell(v.stopped)}; caught by the pipeline ${rateCell(v.caught_by_pipeline)}</td></tr>`,
  )
  .join('')}
</table><p class="note">${esc(lv.note)} Thresholds: replay score ${lv.thresholds.replay_score}, moiré score ${lv.thresholds.moire_score}, liveness floor ${lv.thresholds.liveness_floor}.</p>
${fig('replay-score')}${fig('moire-score')}${fig('liveness-score')}
<h2>Upload checks</h2>
<p>Genuine photos accepted: ${rateCell(s.upload.accepted)}.</p>
<table><tr><th>code (first failing check)</th><th>refused</th></tr>${
    Object.entries(s.upload.refused_by_code)
      .map(([c, r]) => `<tr><td><code>${esc(c)}</code></td><td>${rateCell(r)}</td></tr>`)
      .join('') || '<tr><td colspan="2">none</td></tr>'
  }</table>
${fig('upload-refusals')}
${s.documents && s.documents.n + s.documents.invalid_check_digits.n > 0 ? documentsHtml(s.documents) : ''}</body></html>
`;
}

/** Writes report.html, summary.json and charts/*.png into `dir`. */
export async function writeReport(dir: string, s: Report, scores: Scores): Promise<string[]> {
  const cs = charts(s, scores);
  fs.mkdirSync(path.join(dir, 'charts'), { recursive: true });
  const written = [path.join(dir, 'report.html'), path.join(dir, 'summary.json')];
  fs.writeFileSync(written[0], html(s, cs));
  fs.writeFileSync(written[1], JSON.stringify(s, null, 1) + '\n');
  for (const c of cs) {
    const file = path.join(dir, 'charts', `${c.id}.png`);
    await sharp(Buffer.from(c.svg), { density: 144 }).png().toFile(file);
    written.push(file);
  }
  return written;
}

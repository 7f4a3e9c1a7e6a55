/**
 * The age figures by group (issue 39): on a manifest with `sex` and `group` columns built here, the evaluator's
 * summary gives each label's adults passed, minors passed with their upper bound, error and bias, and the
 * fairness summary per column; the fit's group weighting recovers a known balanced model on made-up data; the
 * range table's cuts hold in every labelled group; and the UTKFace labeller reads file names.
 */
import { describe, expect, it } from 'vitest';
import { estimationResult } from '../lib/domain/pipeline/checks/age-estimate';
import { ageRangeOf } from '../lib/domain/thresholds/age-range';
import { ageByGroup, ageFairness } from './age-groups';
import { balanceWeights, fitCalibration, fitRanges, type Labelled } from './age-fit';
import { labelManifest, utkfaceLabels } from './label-utkface';
import { parseManifest } from './manifest';
import type { PhotoRecord } from './measure';
import { seeded } from './stats';
import { summarize } from './summarize';

/** A record whose estimate is `estimate` (the analysis's stored age, no network outputs to recompute it from). */
const record = (row: ReturnType<typeof parseManifest>[number], estimate: number): PhotoRecord => ({
  ...row,
  sha256: row.file,
  version: 'test',
  width: 320,
  height: 240,
  padded: false,
  upload: { accepted: true, code: null, failed_checks: [] },
  faces_found: 1,
  face: {
    embedding: null,
    age: estimate,
    age_features: null,
    replay_score: null,
    live: 0.9,
    real: 0.9,
    size_fraction: 0.5,
  },
});

describe('the evaluator by group', () => {
  // An estimate the production ranges pass at 18, and one they refer (checked below, not assumed).
  const PASS = 70;
  const REFER = 19;

  it('reads the optional sex and group columns; empty is unknown, and without them the rows have neither', () => {
    const rows = parseManifest(
      'file,person,age,kind,sex,group\na.jpg,,30,genuine,female,Asian\nb.jpg,,30,genuine,,\n',
      '/s',
    );
    expect(rows.map((r) => [r.sex, r.group])).toEqual([
      ['female', 'Asian'],
      [null, null],
    ]);
    expect(parseManifest('file,person,age,kind\na.jpg,,30,genuine\n', '/s')[0]).not.toHaveProperty('sex');
    expect(() => parseManifest(`file,person,age,kind,sex\na.jpg,,30,genuine,${'x'.repeat(65)}\n`, '/s')).toThrow(
      /at most 64/,
    );
  });

  it('by_group and fairness in the summary, at the threshold, with the production ranges', () => {
    expect(estimationResult(PASS, 18).decision).toBe('pass');
    expect(estimationResult(REFER, 18).decision).toBe('refer');
    // women: 4 adults (3 passed), 2 minors (none passed); men: 4 adults (1 passed), 2 minors (1 passed, estimated 70);
    // group A: the women; group B: the men; one more adult of unknown sex and group, passed.
    const lines = ['file,person,age,kind,sex,group'];
    const est: number[] = [];
    const add = (age: number, sex: string, group: string, e: number) => {
      lines.push(`p${lines.length}.jpg,,${age},genuine,${sex},${group}`);
      est.push(e);
    };
    for (const e of [PASS, PASS, PASS, REFER]) add(40, 'female', 'A', e);
    for (const e of [REFER, REFER]) add(15, 'female', 'A', e);
    for (const e of [PASS, REFER, REFER, REFER]) add(40, 'male', 'B', e);
    for (const e of [PASS, REFER]) add(15, 'male', 'B', e);
    add(40, '', '', PASS);
    const rows = parseManifest(lines.join('\n'), '/set');
    const s = summarize(rows.map((r, i) => record(r, est[i])));
    const row = (column: string, label: string) =>
      s.age.by_group.find((g) => g.column === column && g.label === label)!;
    expect(s.age.by_group.map((g) => `${g.column}:${g.label}`)).toEqual([
      'sex:female',
      'sex:male',
      'group:A',
      'group:B',
    ]);
    expect(row('sex', 'female')).toEqual({
      column: 'sex',
      label: 'female',
      over: { n: 4, passed: { k: 3, n: 4, rate: 0.75 } },
      under: { n: 2, passed: { k: 0, n: 2, rate: 0, upper95: 0.7764 } },
      mae: expect.closeTo((30 * 3 + 21 + 4 * 2) / 6, 2),
      bias: expect.closeTo((30 * 3 - 21 + 4 * 2) / 6, 2),
    });
    expect(row('sex', 'male').over.passed).toEqual({ k: 1, n: 4, rate: 0.25 });
    expect(row('sex', 'male').under.passed).toMatchObject({ k: 1, n: 2, rate: 0.5 });
    expect(row('group', 'B').over.passed.rate).toBe(0.25);
    expect(s.age.fairness).toEqual([
      {
        column: 'sex',
        lowest_to_highest_adults_passed: 0.333,
        lowest: 'male',
        highest: 'female',
        max_minors_passed_rate: 0.5,
      },
      {
        column: 'group',
        lowest_to_highest_adults_passed: 0.333,
        lowest: 'B',
        highest: 'A',
        max_minors_passed_rate: 0.5,
      },
    ]);
    // Without the columns: no rows, no summary.
    const plain = parseManifest('file,person,age,kind\na.jpg,,40,genuine\n', '/s');
    expect(summarize([record(plain[0], PASS)]).age).toMatchObject({ by_group: [], fairness: [] });
  });

  it('a column with one label, or none passed anywhere, has no ratio', () => {
    const rows = ageByGroup(
      [
        { truth: 30, estimate: 20, sex: 'female' },
        { truth: 30, estimate: 20, group: 'A' },
        { truth: 30, estimate: 20, group: 'B' },
      ],
      18,
      () => 'refer',
    );
    expect(ageFairness(rows)).toEqual([
      {
        column: 'sex',
        lowest_to_highest_adults_passed: null,
        lowest: null,
        highest: null,
        max_minors_passed_rate: null,
      },
      {
        column: 'group',
        lowest_to_highest_adults_passed: null,
        lowest: 'A',
        highest: 'B',
        max_minors_passed_rate: null,
      },
    ]);
  });

  it('labels a UTKFace manifest from its file names; other rows stay unknown', () => {
    expect(utkfaceLabels('age/23_1_2_20170116174525125.jpg')).toEqual({ sex: 'female', group: 'Asian' });
    expect(utkfaceLabels('age/utkface/61_0_3_20170109150557335.jpg')).toEqual({ sex: 'male', group: 'Indian' });
    expect(utkfaceLabels('identity/lfw/A_B/A_B_0001.jpg')).toEqual({ sex: null, group: null });
    expect(labelManifest('file,person,age,kind\nage/40_0_4_2017.jpg,,40,genuine\n"x,1.jpg",lfw:X,,genuine\n')).toBe(
      'file,person,age,kind,sex,group\nage/40_0_4_2017.jpg,,40,genuine,male,Other\n"x,1.jpg",lfw:X,,genuine,,\n',
    );
  });
});

describe('the fit by group', () => {
  it('balanced weights: every labelled cell weighs alike and the weights sum to the number of faces', () => {
    const w = balanceWeights([{ sex: 'f' }, { sex: 'f' }, { sex: 'f' }, { sex: 'm' }]);
    expect(w).toEqual([4 / 6, 4 / 6, 4 / 6, 2]);
    expect(balanceWeights([{}, {}])).toEqual([1, 1]);
  });

  it('recovers the balanced model from a set where one group is nine faces in ten', () => {
    // Group A (900 faces): age = 1 + 2x; group B (100 faces): age = 5 + 2x. The balanced model, each group weighing
    // alike, is age = 3 + 2x; an unweighted fit follows A (1.4 + 2x).
    // The same ages in both groups (A has each nine times), so the group is independent of the network's reading.
    const rnd = seeded(8);
    const xs = Array.from({ length: 100 }, () => 5 + rnd() * 40);
    const pts: Labelled[] = [
      ...xs.flatMap((x) =>
        Array.from({ length: 9 }, () => ({ truth: 1 + 2 * x, features: { face_api: x }, group: 'A' })),
      ),
      ...xs.map((x) => ({ truth: 5 + 2 * x, features: { face_api: x }, group: 'B' })),
    ];
    const plain = fitCalibration(pts, { groups: [['face_api']], ridge: 0 });
    const balanced = fitCalibration(pts, { groups: [['face_api']], ridge: 0, balance: true });
    expect(plain.intercept).toBeCloseTo(1.4, 6);
    expect(balanced.intercept).toBeCloseTo(3, 6);
    expect(balanced.weights[0]).toBeCloseTo(2, 6);
    expect(balanced.balanced).toBe(true);
  });

  it('the sex reading as an input: an offset and a slope for faces read as women, recovered', () => {
    const rnd = seeded(9);
    // Faces read as women (male = 0) are 4 years older than the network says, and its slope is 10 % flatter for them.
    const pts: Labelled[] = Array.from({ length: 600 }, (_, i) => {
      const x = 10 + rnd() * 50;
      const male = i % 2 ? 1 : 0;
      return { truth: male ? x : 4 + 1.1 * x, features: { face_api: x, male } };
    });
    const c = fitCalibration(pts, { groups: [['face_api']], ridge: 0, sex: true });
    // m = male − 0.5: age = (2 + 1.05x) + m · (−4 − 0.1x)
    expect(c.intercept).toBeCloseTo(2, 5);
    expect(c.weights[0]).toBeCloseTo(1.05, 5);
    expect(c.sex!.weights[0]).toBeCloseTo(-4, 5);
    expect(c.sex!.weights[1]).toBeCloseTo(-0.1, 5);
  });

  it('byGroup: the lower cut holds in every labelled group, not only over the set', () => {
    // 300 minors aged 10: group A (200) estimated 0..19.9, group B (100) estimated 10..19.9 (higher); 300 adults.
    const truth = [...Array(300).fill(10), ...Array(300).fill(30)];
    const est = [
      ...Array.from({ length: 200 }, (_, i) => i / 10),
      ...Array.from({ length: 100 }, (_, i) => 10 + i / 10),
      ...Array.from({ length: 300 }, (_, i) => 20 + i / 10),
    ];
    const labels = truth.map((_, i) => ({ group: i < 200 ? 'A' : i < 300 ? 'B' : i % 2 ? 'A' : 'B' }));
    const o = { alpha: 0.01, beta: 0.02, margin: 0, thresholds: [18] };
    const overall = fitRanges(truth, est, o, '', labels);
    const byGroup = fitRanges(truth, est, { ...o, byGroup: true }, '', labels);
    // Over the set: rank ceil(301 · 0.99) = 298 of the sorted 300 minors' estimates. In group B alone (100 minors):
    // rank min(100, ceil(101 · 0.99)) = 100, its highest, 19.9.
    const sorted = est.slice(0, 300).sort((a, b) => a - b);
    expect(overall.lower).toEqual([[18, sorted[297]]]);
    expect(byGroup.lower).toEqual([[18, 19.9]]);
    expect(byGroup.by_group).toBe(true);
    const passedB = est.slice(200, 300).filter((e) => ageRangeOf(byGroup, e).min >= 18).length;
    expect(passedB).toBe(1); // the highest, at the cut itself: 1 of 100
    expect(est.slice(200, 300).filter((e) => ageRangeOf(overall, e).min >= 18).length).toBeGreaterThan(1);
  });

  it('byReadSex: a table for the faces read as women and one for those read as men, each holding alpha for its own', () => {
    // 400 minors aged 15 and 400 adults aged 30, half of each read as women (male 0.1), half as men (0.9). Minors read
    // as men are estimated 5 years higher (10..29.95) than those read as women (5..24.95); adults 25..44.95 alike.
    const n = 200;
    const ramp = (from: number) => Array.from({ length: n }, (_, i) => from + i / 10);
    const truth = [...Array(2 * n).fill(15), ...Array(2 * n).fill(30)];
    const est = [...ramp(5), ...ramp(10), ...ramp(25), ...ramp(25)];
    const males = [0, 1, 0, 1].flatMap((m) => Array(n).fill(m ? 0.9 : 0.1));
    const o = { alpha: 0.01, beta: 0.02, margin: 0, thresholds: [18] };
    const shared = fitRanges(truth, est, o, '', undefined, males);
    const split = fitRanges(truth, est, { ...o, byReadSex: true }, '', undefined, males);
    expect(shared.by_read_sex).toBeUndefined();
    // Each read sex's cut is the rank ceil(201 · 0.99) = 199 of its own 200 minors' estimates.
    expect(split.by_read_sex!.female.lower).toEqual([[18, 5 + 198 / 10]]);
    expect(split.by_read_sex!.male.lower).toEqual([[18, 10 + 198 / 10]]);
    const passed = (table: typeof shared, from: number, male: number) =>
      est.slice(from, from + n).filter((e) => ageRangeOf(table, e, male).min >= 18).length;
    // One table for everyone: its cut (rank 397 of all 400) lets through 4 of the 200 minors read as men (2 %),
    // none of those read as women, and passes fewer adults read as women than their own table would.
    expect(passed(shared, n, 0.9)).toBe(4);
    expect(passed(shared, 0, 0.1)).toBe(0);
    // Apart: 2 of 200 (the two at or over the cut) in each, and the adults read as women pass 5 years sooner.
    expect(passed(split, 0, 0.1)).toBe(2);
    expect(passed(split, n, 0.9)).toBe(2);
    expect(passed(split, 2 * n, 0.1)).toBe(200); // cut 24.8: every adult read as a woman (25 and up)
    expect(passed(split, 2 * n, 0.1)).toBeGreaterThan(passed(shared, 2 * n, 0.1));
    // A face without a reading is judged by both tables, each end on its safe side: the stricter lower end.
    expect(ageRangeOf(split, 27, null).min).toBe(ageRangeOf(split, 27, 0.9).min);
    expect(ageRangeOf(split, 27, 0.1).min).toBe(18);
    expect(ageRangeOf(split, 27, null).min).toBeLessThan(18);
  });

  it('byReadSex falls back to one table when a read sex has too few minors for its own cut at 18', () => {
    const truth = [...Array(300).fill(15), ...Array(300).fill(30)];
    const est = truth.map((t, i) => t + (i % 10));
    // Only 100 minors read as women: fewer than 2 / alpha − 1 = 199.
    const males = truth.map((_, i) => (i < 100 ? 0.1 : 0.9));
    const t = fitRanges(
      truth,
      est,
      { alpha: 0.01, beta: 0.02, margin: 0, thresholds: [18], byReadSex: true },
      '',
      undefined,
      males,
    );
    expect(t.by_read_sex).toBeUndefined();
  });
});

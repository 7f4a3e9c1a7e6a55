/** The age fit and the evaluator's age figures, on made-up numbers whose answers are known. */
import { describe, expect, it } from 'vitest';
import { ageRangeOf, type AgeRanges } from '../lib/domain/thresholds/age-range';
import {
  applyCalibration,
  crossValidatedEstimates,
  decisionsAt,
  fitCalibration,
  fitRanges,
  leastSquares,
  logistic,
  nestedCrossValidation,
  normalQuantile,
  rangeFigures,
  type Judged,
  type Labelled,
} from './age-fit';
import { binomialCdf, clopperPearsonUpper, seeded } from './stats';
import { judge, rangeQuality } from './summarize';

const steps = (from: number, n: number, step = 0.1) =>
  Array.from({ length: n }, (_, i) => Math.round((from + i * step) * 100) / 100);

describe('Clopper-Pearson upper bound', () => {
  it('0 of n is 1 − 0.05^(1/n) (about 3 / n); 1 of 100 is 4.66 %; k = n is 1; n = 0 is null', () => {
    expect(clopperPearsonUpper(0, 100)).toBeCloseTo(1 - 0.05 ** (1 / 100), 5);
    expect(clopperPearsonUpper(0, 523)).toBeCloseTo(0.00571, 4);
    expect(clopperPearsonUpper(1, 100)).toBeCloseTo(0.0466, 3);
    expect(clopperPearsonUpper(5, 5)).toBe(1);
    expect(clopperPearsonUpper(0, 0)).toBeNull();
    // At the bound, seeing k or fewer has probability 5 %.
    expect(binomialCdf(3, 300, clopperPearsonUpper(3, 300)!)).toBeCloseTo(0.05, 3);
  });
});

describe('the calibration', () => {
  it('least squares recovers known coefficients; each face cross-validated by a fit without it', () => {
    const rnd = seeded(3);
    const xs = Array.from({ length: 200 }, () => [rnd() * 50, rnd() * 50]);
    const w = leastSquares(
      xs,
      xs.map(([a, b]) => 2 + 3 * a - b),
    );
    expect(w.map((v) => Math.round(v * 1000) / 1000)).toEqual([2, 3, -1]);
    // Groups are averaged; a group with no measured view takes the mean of the others.
    const pts: Labelled[] = xs.map(([a, b]) => ({
      truth: 5 + 0.5 * a + 0.5 * b,
      features: { faceres: a, faceres_mirror: a, face_api: b },
    }));
    const c = fitCalibration(pts, [['faceres', 'faceres_mirror'], ['face_api']]);
    expect(c.intercept).toBeCloseTo(5, 4);
    expect(c.weights[0]).toBeCloseTo(0.5, 4);
    expect(applyCalibration(c, [{ truth: 0, features: { faceres: 20 } }])[0]).toBeCloseTo(25, 3);
    // A face whose label is wildly off pulls the fit that saw it, not its own cross-validated estimate.
    const odd = [...pts, { truth: 90, features: { faceres: 10, faceres_mirror: 10, face_api: 10 } }];
    const cv = crossValidatedEstimates(odd, c.groups);
    expect(cv[odd.length - 1]).toBeCloseTo(15, 0);
  });

  it('with the face description: the ridge fit finds the age it carries, centred on its mean; on the log scale it fits the logarithm', () => {
    const rnd = seeded(5);
    // The network says the age with noise; the description's first number says it exactly (the second is noise).
    const pts: Labelled[] = Array.from({ length: 400 }, () => {
      const age = 10 + rnd() * 40;
      return {
        truth: age,
        features: { faceres: age + (rnd() - 0.5) * 20, face_api: age + (rnd() - 0.5) * 20 },
        description: [age / 100, rnd()],
      };
    });
    const nets = fitCalibration(pts, [['faceres'], ['face_api']]);
    const both = fitCalibration(pts, { groups: [['faceres'], ['face_api']], description: true, ridge: 1e-6 });
    const mae = (c: typeof nets) =>
      applyCalibration(c, pts).reduce((s, e, i) => s + Math.abs(e - pts[i].truth), 0) / pts.length;
    expect(mae(nets)).toBeGreaterThan(2);
    expect(mae(both)).toBeLessThan(0.01);
    expect(both.description!.weights[0]).toBeCloseTo(100, 1);
    expect(both.description!.mean[0]).toBeCloseTo(pts.reduce((s, p) => s + p.truth / 100, 0) / pts.length, 6);
    // A stronger penalty shrinks the description's weight towards 0.
    expect(
      Math.abs(
        fitCalibration(pts, { groups: [['faceres'], ['face_api']], description: true, ridge: 10 }).description!
          .weights[0],
      ),
    ).toBeLessThan(50);
    // Log scale: exp of the sum, so an age the description gives as its logarithm is recovered.
    const logPts = pts.map((p) => ({ ...p, description: [Math.log(p.truth), 0.5] }));
    const log = fitCalibration(logPts, { groups: [['faceres']], description: true, scale: 'log', ridge: 1e-6 });
    expect(log.scale).toBe('log');
    expect(
      applyCalibration(log, [{ truth: 0, features: { faceres: 30 }, description: [Math.log(30), 0.5] }])[0],
    ).toBeCloseTo(30, 1);
  });

  it('logistic: the probability rises with the estimate and is one half where the classes meet', () => {
    const xs = steps(0, 400);
    const [a, b] = logistic(
      xs,
      xs.map((x) => x >= 20),
    );
    expect(b).toBeGreaterThan(0);
    expect(-a / b).toBeCloseTo(20, 0);
  });
});

describe('the range table', () => {
  // 199 people aged 10 estimated 0.1..19.9, 199 aged 30 estimated 20.1..39.9.
  const truth = [...Array(199).fill(10), ...Array(199).fill(30)];
  const est = [...steps(0.1, 199), ...steps(20.1, 199)];
  const table = fitRanges(truth, est, { alpha: 0.01, beta: 0.02, margin: 0, thresholds: [18, 25, 35] });

  it('lower cut: the split-conformal quantile of the people under the threshold; upper cut: of those at or over it', () => {
    // Under 18: n = 199, rank ceil(200 · 0.99) = 198 → 19.8. At or over 18: k = floor(0.02 · 200) = 4 → 20.4.
    // 35 has no one at or over it: it gets no cut.
    expect(table.lower).toEqual([
      [18, 19.8],
      [25, 19.8],
    ]);
    // Too few people under a threshold for alpha without the cut being the highest of them: no cut there.
    expect(
      fitRanges(truth.slice(100), est.slice(100), { alpha: 0.01, beta: 0.02, margin: 0, thresholds: [18] }).lower,
    ).toEqual([]);
    expect(table.upper).toEqual([
      [18, 20.4],
      [25, 20.4],
    ]);
    const withMargin = fitRanges(truth, est, { alpha: 0.01, beta: 0.02, margin: 0.5, thresholds: [18] });
    expect(withMargin.lower).toEqual([[18, 20.3]]);
    expect(withMargin.upper).toEqual([[18, 19.9]]);
    // The upper end may keep its own, wider margin (failing an adult costs more than referring a minor).
    const wider = fitRanges(truth, est, { alpha: 0.01, beta: 0.02, margin: 0.5, upperMargin: 2, thresholds: [18] });
    expect([wider.lower, wider.upper, wider.upper_margin]).toEqual([[[18, 20.3]], [[18, 18.4]], 2]);
  });

  it('the range: the highest threshold whose lower cut the estimate reaches, one under the lowest whose upper cut it misses', () => {
    expect(ageRangeOf(table, 30)).toEqual({ min: 25, max: 100 });
    expect(ageRangeOf(table, 10)).toEqual({ min: 0, max: 17 });
    // Always contains the rounded estimate.
    expect(ageRangeOf(table, 20)).toEqual({ min: 20, max: 20 });
  });

  it('cuts never fall as the threshold rises, each end moved to the safe side', () => {
    // Under 18: 198 people estimated 5 and 2 estimated 30, n = 200 → rank 199 → 30. Under 21 also 200 people aged
    // 19 estimated 10, n = 400 → rank 397 → 10: the raw 21 cut would let through the two at 30; it is raised to 30.
    const truth = [...Array(200).fill(15), ...Array(200).fill(19), ...Array(120).fill(40)];
    const est = [...Array(198).fill(5), 30, 30, ...Array(200).fill(10), ...Array(120).fill(50)];
    const t: AgeRanges = fitRanges(truth, est, { alpha: 0.01, beta: 0.02, margin: 0, thresholds: [18, 21] });
    expect(t.lower).toEqual([
      [18, 30],
      [21, 30],
    ]);
    // Upper: at or over 18 (n = 320), k = floor(0.02 · 321) = 6 → 10; at or over 21 (the 40s), k = 2 → 50.
    expect(t.upper).toEqual([
      [18, 10],
      [21, 50],
    ]);
    // An upper cut above that of a higher threshold is lowered to it: at or over 21 (50 people, one estimated 1) the
    // cut is 1; at or over 18 also 200 people aged 19 estimated 30 (k = 5 → 30), which would fail that one at 18.
    const u = fitRanges(
      [...Array(100).fill(10), ...Array(200).fill(19), ...Array(50).fill(40)],
      [...Array(100).fill(5), ...Array(200).fill(30), 1, ...Array(49).fill(40)],
      { alpha: 0.01, beta: 0.02, margin: 0, thresholds: [18, 21] },
    );
    expect(u.upper).toEqual([
      [18, 1],
      [21, 1],
    ]);
  });

  it('on new people from the same population, about alpha at most pass a threshold they are under and beta fail one they reach', () => {
    // (A conformal cut holds on average over fits; one fit on a few hundred people can be off by half a percent
    // either way, which is what the margin is for. A large fit shows the construction itself.)
    const rnd = seeded(5);
    const gauss = () => Math.sqrt(-2 * Math.log(rnd() + 1e-12)) * Math.cos(2 * Math.PI * rnd());
    const draw = (n: number) =>
      Array.from({ length: n }, () => {
        const age = 5 + rnd() * 60;
        return { truth: Math.floor(age), estimate: age + gauss() * (2 + age / 8) };
      });
    const fit = draw(20000);
    const t = fitRanges(
      fit.map((p) => p.truth),
      fit.map((p) => p.estimate),
      { alpha: 0.01, beta: 0.02, margin: 0, thresholds: [13, 16, 18, 21, 25, 30] },
    );
    const fresh = draw(20000).map((p) => ({ ...p, ...ageRangeOf(t, p.estimate) }));
    for (const th of [13, 16, 18, 21, 25, 30]) {
      const d = decisionsAt(fresh, th);
      expect(d.under.passed.rate!).toBeLessThan(0.013);
      expect(d.over.failed.rate!).toBeLessThan(0.025);
      expect(d.over.passed.rate!).toBeGreaterThan(0.3);
    }
  });

  it('where too few people are old enough for an empirical upper cut, a parametric one: the beta quantile of a normal fit of the old people’s estimates', () => {
    expect(normalQuantile(0.02)).toBeCloseTo(-2.0537, 3);
    expect(normalQuantile(0.5)).toBeCloseTo(0, 6);
    expect(normalQuantile(0.975)).toBeCloseTo(1.96, 3);
    // 400 children and young adults, and 60 people aged 40-99 estimated 10 + 0.5 · age with a spread of 4 years.
    const rnd = seeded(12);
    const gauss = () => Math.sqrt(-2 * Math.log(rnd() + 1e-12)) * Math.cos(2 * Math.PI * rnd());
    const young = Array.from({ length: 400 }, () => 5 + Math.floor(rnd() * 25));
    const old = Array.from({ length: 60 }, () => 40 + Math.floor(rnd() * 60));
    const truth = [...young, ...old];
    const est = [...young.map((a) => a + gauss()), ...old.map((a) => 10 + 0.5 * a + 4 * gauss())];
    const o = { alpha: 0.01, beta: 0.02, margin: 0, thresholds: [18, 70, 90] };
    // Without the pool no cut at 70 or 90 (fewer than 49 people that old): such an estimate's range runs to 100.
    expect(fitRanges(truth, est, o).upper.map(([t]) => t)).toEqual([18]);
    const t = fitRanges(truth, est, { ...o, upperPoolFrom: 40 });
    expect(t.upper_model!.slope).toBeCloseTo(0.5, 1);
    expect(t.upper_model!.sd).toBeGreaterThan(3);
    expect(t.upper_model!.sd).toBeLessThan(5);
    // At 70: 10 + 35 − 2.05 · 4 ≈ 36.8; at 90: ≈ 46.8.
    expect(t.upper.find(([th]) => th === 70)![1]).toBeCloseTo(36.8, 0);
    expect(t.upper.find(([th]) => th === 90)![1]).toBeCloseTo(46.8, 0);
    // A 40-year-old estimated 30 (the model's mean at 40) is declined at 70, not at 18; one estimated 45 is not at 70.
    expect(ageRangeOf(t, 30).max).toBe(69);
    expect(ageRangeOf(t, 45).max).toBe(89);
  });

  it('likewise a parametric lower cut where too few people are under a threshold: the 1 − alpha quantile at one year under it', () => {
    // 120 children aged 5-11 estimated exactly their age plus a spread of 2 years, 400 adults estimated 30-50.
    const rnd = seeded(13);
    const gauss = () => Math.sqrt(-2 * Math.log(rnd() + 1e-12)) * Math.cos(2 * Math.PI * rnd());
    const kids = Array.from({ length: 120 }, () => 5 + Math.floor(rnd() * 7));
    const adults = Array.from({ length: 400 }, () => 30 + Math.floor(rnd() * 20));
    const truth = [...kids, ...adults];
    const est = [...kids.map((a) => a + 2 * gauss()), ...adults.map((a) => a + gauss())];
    const o = { alpha: 0.01, beta: 0.02, margin: 0, thresholds: [8, 10] };
    // Fewer than 199 people under 8 or 10: no empirical cut, so without the pool a 35-year-old's range starts at 0.
    expect(fitRanges(truth, est, o).lower).toEqual([]);
    const t = fitRanges(truth, est, { ...o, lowerPoolUnder: 18 });
    // At 10: the estimates of 9-year-olds, 9 + 2.33 · 2 ≈ 13.7.
    const m = t.lower_model!;
    const cut10 = t.lower.find(([th]) => th === 10)![1];
    expect(cut10).toBeCloseTo(m.intercept + m.slope * 9 + normalQuantile(0.99) * m.sd, 1);
    expect(Math.abs(cut10 - 13.7)).toBeLessThan(1);
    expect(Math.abs(t.lower_model!.slope - 1)).toBeLessThan(0.15);
    expect(ageRangeOf(t, 35).min).toBe(10);
  });

  it('nested cross-validation: the faces a table and calibration are measured on took no part in fitting them', () => {
    const rnd = seeded(9);
    const pts: Labelled[] = Array.from({ length: 600 }, () => {
      const age = 8 + rnd() * 50;
      return {
        truth: Math.floor(age),
        features: { faceres: age + (rnd() - 0.5) * 10, face_api: age + (rnd() - 0.5) * 10 },
      };
    });
    const judged = nestedCrossValidation(pts, [['faceres'], ['face_api']], {
      alpha: 0.01,
      beta: 0.02,
      margin: 0,
      thresholds: [12, 15, 18, 21, 25, 30, 40],
    });
    expect(judged).toHaveLength(600);
    expect(judged.every((j, i) => j.truth === pts[i].truth && j.min <= j.max)).toBe(true);
    const d = decisionsAt(judged, 18);
    expect(d.under.passed.rate!).toBeLessThan(0.03);
    expect(d.over.passed.rate!).toBeGreaterThan(0.5);
  });
});

describe("the evaluator's figures at a threshold", () => {
  // Adults (truth ≥ 18): two passed, one referred, one failed. Under 18: one passed, one referred, one failed.
  const judged: Judged[] = [
    { truth: 30, estimate: 32, min: 20, max: 45 },
    { truth: 40, estimate: 38, min: 18, max: 60 },
    { truth: 19, estimate: 17, min: 12, max: 25 },
    { truth: 22, estimate: 12, min: 8, max: 16 },
    { truth: 17, estimate: 24, min: 18, max: 30 },
    { truth: 15, estimate: 16, min: 10, max: 22 },
    { truth: 9, estimate: 9, min: 5, max: 14 },
  ];

  it('adults passed / referred / failed; minors passed with the one-sided 95 % Clopper-Pearson upper bound', () => {
    const d = decisionsAt(judged, 18);
    expect(d.over).toMatchObject({ n: 4, passed: { k: 2, rate: 0.5 }, referred: { k: 1 }, failed: { k: 1 } });
    expect(d.under).toMatchObject({ n: 3, passed: { k: 1 }, referred: { k: 1 }, failed: { k: 1 } });
    expect(d.under.passed_upper95).toBeCloseTo(0.8646, 3); // 1 of 3: 1 − (p at which P(X ≤ 1) = 0.05)
    // At 21 the 19-year-old counts as under and the 17-year-old's range (18–30) no longer passes.
    expect(decisionsAt(judged, 21)).toMatchObject({
      over: { n: 3, passed: { k: 0 } },
      under: { n: 4, passed: { k: 0 } },
    });
  });

  it('coverage (true age inside the range, ends included) and mean width', () => {
    const r = rangeFigures(judged);
    expect(r.coverage).toMatchObject({ k: 5, n: 7 }); // 22 (8–16) and 17 (18–30) fall outside
    expect(r.mean_width).toBeCloseTo((25 + 42 + 13 + 8 + 12 + 12 + 9) / 7, 2);
    const q = rangeQuality(judged);
    expect(q.by_band.find((b) => b.band === '13–17')).toMatchObject({ n: 2, coverage: { k: 1 } });
  });

  it("judge() applies a range table to each estimate, as the pipeline's check does", () => {
    const table: AgeRanges = {
      fitted_on: 'test',
      n: 0,
      alpha: 0.01,
      beta: 0.02,
      margin: 0,
      lower: [
        [18, 25],
        [21, 28],
      ],
      upper: [
        [18, 15],
        [21, 17],
      ],
      confidence: [],
    };
    expect(
      judge(
        [
          { truth: 30, estimate: 29 },
          { truth: 12, estimate: 14 },
        ],
        table,
      ),
    ).toEqual([
      { truth: 30, estimate: 29, min: 21, max: 100 },
      { truth: 12, estimate: 14, min: 0, max: 17 },
    ]);
  });
});

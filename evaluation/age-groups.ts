/**
 * The age estimate's figures by group: for each optional label column of the manifest (`sex`, `group`;
 * evaluation/manifest.ts) and each of its labels, the people at or over the threshold passed, those under it
 * passed (with the one-sided 95 % Clopper-Pearson upper bound), the mean absolute error and the bias; and per
 * column a fairness summary: the lowest label's adults-passed rate over the highest's, and the highest share of
 * under-age people passed in any label. Rows with an empty label take part in no group. Pure: numbers in,
 * numbers out.
 */
import { LABEL_COLUMNS, type LabelColumn } from './manifest';
import { clopperPearsonUpper, mean, rate, round } from './stats';

export type Decision = 'pass' | 'refer' | 'fail';
/** One face with an age and an estimate, and its labels (null or absent: unknown). */
export type LabelledEstimate = { truth: number; estimate: number; male?: number | null } & Partial<
  Record<LabelColumn, string | null>
>;

const passRate = (k: number, n: number) => {
  const r = rate(k, n);
  return { k: r.k, n: r.n, rate: r.rate === null ? null : round(r.rate, 4) };
};

export type GroupRow = {
  column: LabelColumn;
  label: string;
  over: { n: number; passed: { k: number; n: number; rate: number | null } };
  under: { n: number; passed: { k: number; n: number; rate: number | null; upper95: number | null } };
  mae: number | null;
  bias: number | null;
};

export type Fairness = {
  column: LabelColumn;
  /** the lowest adults-passed rate over the highest, among labels with people at or over the threshold (null: fewer than two such labels, or none passed) */
  lowest_to_highest_adults_passed: number | null;
  lowest: string | null;
  highest: string | null;
  /** the highest share of under-age people passed among the labels (null: no label has anyone under the threshold) */
  max_minors_passed_rate: number | null;
};

/** By-group rows at threshold `t`, each face decided by `decide` (the production ranges, in the evaluator). */
export function ageByGroup(
  points: readonly LabelledEstimate[],
  t: number,
  decide: (estimate: number, male?: number | null) => Decision,
): GroupRow[] {
  const rows: GroupRow[] = [];
  for (const column of LABEL_COLUMNS) {
    const labels = [
      ...new Set(points.map((p) => p[column]).filter((l): l is string => typeof l === 'string' && l !== '')),
    ].sort();
    for (const label of labels) {
      const ps = points.filter((p) => p[column] === label);
      const over = ps.filter((p) => p.truth >= t);
      const under = ps.filter((p) => p.truth < t);
      const passed = (xs: readonly LabelledEstimate[]) =>
        xs.filter((p) => decide(p.estimate, p.male) === 'pass').length;
      const underPassed = passed(under);
      const errors = ps.map((p) => p.estimate - p.truth);
      rows.push({
        column,
        label,
        over: { n: over.length, passed: passRate(passed(over), over.length) },
        under: {
          n: under.length,
          passed: {
            ...passRate(underPassed, under.length),
            upper95: under.length ? round(clopperPearsonUpper(underPassed, under.length)!, 4) : null,
          },
        },
        mae: errors.length ? round(mean(errors.map(Math.abs))!, 2) : null,
        bias: errors.length ? round(mean(errors)!, 2) : null,
      });
    }
  }
  return rows;
}

/** The fairness summary of each column that has labels. */
export function ageFairness(rows: readonly GroupRow[]): Fairness[] {
  const out: Fairness[] = [];
  for (const column of LABEL_COLUMNS) {
    const rs = rows.filter((r) => r.column === column);
    if (rs.length === 0) continue;
    const withAdults = rs
      .filter((r) => r.over.passed.rate !== null)
      .sort((a, b) => a.over.passed.rate! - b.over.passed.rate!);
    const lowest = withAdults[0] ?? null;
    const highest = withAdults[withAdults.length - 1] ?? null;
    const ratio =
      withAdults.length >= 2 && highest!.over.passed.rate! > 0
        ? round(lowest!.over.passed.rate! / highest!.over.passed.rate!, 3)
        : null;
    const minors = rs.map((r) => r.under.passed.rate).filter((x): x is number => x !== null);
    out.push({
      column,
      lowest_to_highest_adults_passed: ratio,
      lowest: withAdults.length >= 2 ? lowest!.label : null,
      highest: withAdults.length >= 2 ? highest!.label : null,
      max_minors_passed_rate: minors.length ? Math.max(...minors) : null,
    });
  }
  return out;
}

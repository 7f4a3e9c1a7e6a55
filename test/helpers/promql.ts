/**
 * The metric names a PromQL expression reads: identifiers that are not functions, keywords, label names in a
 * grouping, matchers or durations. Enough for the dashboard's queries (deploy/grafana), tested in
 * server/observability.server.int.test.ts beside the scrape it checks them against.
 */
const KEYWORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'and',
  'or',
  'unless',
  'offset',
  'bool',
  'inf',
  'nan',
]);

export function promqlMetricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""') // strings
    .replace(/\{[^}]*\}/g, ' ') // label matchers
    .replace(/\[[^\]]*\]/g, ' ') // ranges and subqueries
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' '); // groupings
  const names = new Set<string>();
  for (const m of stripped.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)) {
    const after = stripped.slice(m.index! + m[0].length).trimStart();
    if (after.startsWith('(')) continue; // a function
    if (KEYWORDS.has(m[0].toLowerCase())) continue;
    const before = stripped.slice(0, m.index!);
    if (/[0-9.]$/.test(before) || /\$$/.test(before)) continue; // part of a number or a variable
    names.add(m[0]);
  }
  return [...names];
}

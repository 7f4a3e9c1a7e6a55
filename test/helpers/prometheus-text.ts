/**
 * A parser of the Prometheus text exposition format (version 0.0.4), strict enough to fail on what a Prometheus
 * server would refuse: each sample line parsed with its labels and escapes, each sample assigned to its family by
 * the family's TYPE (a histogram's `_bucket`, `_sum`, `_count`), a TYPE given once and before the family's samples,
 * a histogram's buckets with `le`. Tested on its own (prometheus-text.test.ts).
 */
export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
export type Sample = { name: string; labels: Record<string, string>; value: number };
export type Family = { name: string; help: string | null; type: MetricType; samples: Sample[] };

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set<MetricType>(['counter', 'gauge', 'histogram', 'summary', 'untyped']);
const SUFFIXES: Record<MetricType, string[]> = {
  counter: [''],
  gauge: [''],
  untyped: [''],
  histogram: ['_bucket', '_sum', '_count'],
  summary: ['', '_sum', '_count'],
};

export class PrometheusTextError extends Error {
  constructor(line: number, message: string) {
    super(`line ${line}: ${message}`);
  }
}

function unescape(s: string, quotes: boolean): string {
  return s.replace(quotes ? /\\(["\\n])/g : /\\([\\n])/g, (_, c: string) => (c === 'n' ? '\n' : c));
}

function parseValue(s: string, line: number): number {
  if (s === 'NaN') return NaN;
  if (s === '+Inf' || s === 'Inf') return Infinity;
  if (s === '-Inf') return -Infinity;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(s)) throw new PrometheusTextError(line, `not a number: ${s}`);
  return Number(s);
}

/** The labels of `{…}` starting at `text[0] === '{'`; returns them and where the text goes on. */
function parseLabels(text: string, line: number): { labels: Record<string, string>; rest: string } {
  const labels: Record<string, string> = {};
  let i = 1;
  for (;;) {
    while (text[i] === ' ') i++;
    if (text[i] === '}') return { labels, rest: text.slice(i + 1) };
    const eq = text.indexOf('=', i);
    if (eq < 0) throw new PrometheusTextError(line, 'label without =');
    const name = text.slice(i, eq).trim();
    if (!LABEL.test(name)) throw new PrometheusTextError(line, `bad label name: ${name}`);
    if (name in labels) throw new PrometheusTextError(line, `label given twice: ${name}`);
    if (text[eq + 1] !== '"') throw new PrometheusTextError(line, `label ${name}: value not quoted`);
    let j = eq + 2;
    let raw = '';
    for (; j < text.length && text[j] !== '"'; j++) {
      if (text[j] === '\\') raw += text[j++];
      raw += text[j];
    }
    if (j >= text.length) throw new PrometheusTextError(line, `label ${name}: unterminated value`);
    labels[name] = unescape(raw, true);
    i = j + 1;
    while (text[i] === ' ') i++;
    if (text[i] === ',') i++;
    else if (text[i] !== '}') throw new PrometheusTextError(line, `expected , or } after label ${name}`);
  }
}

/** Every family of an exposition, by name. Throws PrometheusTextError on anything malformed. */
export function parsePrometheusText(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const family = (name: string) => {
    let f = families.get(name);
    if (!f) families.set(name, (f = { name, help: null, type: 'untyped', samples: [] }));
    return f;
  };
  const typed = new Set<string>();
  /** sample name → family name, from the TYPE lines seen so far */
  const owner = (sample: string): string => {
    for (const name of typed) {
      const f = families.get(name)!;
      for (const suffix of SUFFIXES[f.type]) if (sample === name + suffix) return name;
    }
    return sample;
  };
  text.split('\n').forEach((raw, n) => {
    const line = n + 1;
    const l = raw.trim();
    if (l === '') return;
    if (l.startsWith('#')) {
      const m = /^#\s+(HELP|TYPE)\s+(\S+)(?:\s(.*))?$/.exec(l);
      if (!m) return; // a comment
      const [, kind, name, rest = ''] = m;
      if (!NAME.test(name)) throw new PrometheusTextError(line, `bad metric name: ${name}`);
      const f = family(name);
      if (kind === 'HELP') {
        if (f.help !== null) throw new PrometheusTextError(line, `HELP given twice for ${name}`);
        f.help = unescape(rest, false);
      } else {
        if (typed.has(name)) throw new PrometheusTextError(line, `TYPE given twice for ${name}`);
        if (f.samples.length > 0) throw new PrometheusTextError(line, `TYPE of ${name} after its samples`);
        if (!TYPES.has(rest.trim() as MetricType)) throw new PrometheusTextError(line, `unknown type: ${rest}`);
        f.type = rest.trim() as MetricType;
        typed.add(name);
      }
      return;
    }
    const nameEnd = l.search(/[{\s]/);
    if (nameEnd <= 0) throw new PrometheusTextError(line, 'a sample needs a name and a value');
    const name = l.slice(0, nameEnd);
    if (!NAME.test(name)) throw new PrometheusTextError(line, `bad metric name: ${name}`);
    let rest = l.slice(nameEnd);
    let labels: Record<string, string> = {};
    if (rest.startsWith('{')) ({ labels, rest } = parseLabels(rest, line));
    const parts = rest.trim().split(/\s+/);
    if (parts.length < 1 || parts.length > 2 || parts[0] === '')
      throw new PrometheusTextError(line, 'expected a value and an optional timestamp');
    const value = parseValue(parts[0], line);
    if (parts[1] !== undefined && !/^-?\d+$/.test(parts[1]))
      throw new PrometheusTextError(line, `bad timestamp: ${parts[1]}`);
    const f = family(owner(name));
    if (f.type === 'histogram' && name.endsWith('_bucket') && !('le' in labels))
      throw new PrometheusTextError(line, `${name} without le`);
    f.samples.push({ name, labels, value });
  });
  return families;
}

/** Every sample name of an exposition (a histogram's `_bucket`, `_sum` and `_count` each). */
export function sampleNames(families: Map<string, Family>): Set<string> {
  return new Set([...families.values()].flatMap((f) => f.samples.map((s) => s.name)));
}

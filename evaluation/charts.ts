/**
 * The report's charts as self-contained SVG (no script, no CDN, no web font): histograms, a scatter plot,
 * bars with confidence intervals and a DET curve. The same SVG is inlined in the HTML and rasterised to PNG.
 */

export type Chart = { id: string; title: string; svg: string };

const W = 640;
const H = 360;
const M = { left: 64, right: 20, top: 56, bottom: 56 };
const PW = W - M.left - M.right;
const PH = H - M.top - M.bottom;
export const PALETTE = ['#1f6fb2', '#d1495b', '#2e933c', '#edae49', '#6c4f9c', '#00798c', '#8d6a4b', '#555555'];

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const fmt = (v: number) =>
  Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1).replace(/\.0$/, '') : +v.toPrecision(2) + '';

function frame(
  title: string,
  body: string,
  xLabel: string,
  yLabel: string,
  legend: { label: string; color: string }[] = [],
): string {
  const leg = legend
    .map(
      (l, i) =>
        `<rect x="${M.left + 8 + i * 150}" y="${M.top - 24}" width="12" height="12" fill="${l.color}" fill-opacity="0.75"/><text x="${M.left + 24 + i * 150}" y="${M.top - 14}" font-size="12">${esc(l.label)}</text>`,
    )
    .join('');
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="DejaVu Sans, Arial, sans-serif" role="img" aria-label="${esc(title)}">` +
    `<rect width="${W}" height="${H}" fill="#fff"/>` +
    `<text x="${M.left}" y="18" font-size="14" font-weight="bold">${esc(title)}</text>${leg}` +
    `<rect x="${M.left}" y="${M.top}" width="${PW}" height="${PH}" fill="none" stroke="#999"/>` +
    body +
    `<text x="${M.left + PW / 2}" y="${H - 12}" font-size="12" text-anchor="middle">${esc(xLabel)}</text>` +
    `<text x="16" y="${M.top + PH / 2}" font-size="12" text-anchor="middle" transform="rotate(-90 16 ${M.top + PH / 2})">${esc(yLabel)}</text>` +
    `</svg>`
  );
}

type Scale = { at: (v: number) => number; ticks: number[] };
function linear(min: number, max: number, from: number, to: number, count = 6): Scale {
  const span = max - min || 1;
  const raw = span / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? raw;
  const ticks: number[] = [];
  for (let t = Math.ceil(min / step) * step; t <= max + 1e-9; t += step) ticks.push(+t.toFixed(10));
  return { at: (v) => from + ((v - min) / span) * (to - from), ticks };
}
function log10Scale(min: number, max: number, from: number, to: number): Scale {
  const a = Math.log10(min);
  const b = Math.log10(max);
  const ticks: number[] = [];
  for (let e = Math.ceil(a); e <= Math.floor(b); e++) ticks.push(10 ** e);
  return { at: (v) => from + ((Math.log10(Math.max(v, min)) - a) / (b - a)) * (to - from), ticks };
}
function axes(x: Scale, y: Scale, xFmt = fmt, yFmt = fmt): string {
  const xs = x.ticks.map(
    (t) =>
      `<line x1="${x.at(t)}" y1="${M.top + PH}" x2="${x.at(t)}" y2="${M.top + PH + 4}" stroke="#666"/><text x="${x.at(t)}" y="${M.top + PH + 18}" font-size="11" text-anchor="middle">${xFmt(t)}</text>`,
  );
  const ys = y.ticks.map(
    (t) =>
      `<line x1="${M.left - 4}" y1="${y.at(t)}" x2="${M.left + PW}" y2="${y.at(t)}" stroke="#eee"/><text x="${M.left - 8}" y="${y.at(t) + 4}" font-size="11" text-anchor="end">${yFmt(t)}</text>`,
  );
  return ys.join('') + xs.join('');
}
function vline(x: number, label: string): string {
  return `<line x1="${x}" y1="${M.top}" x2="${x}" y2="${M.top + PH}" stroke="#222" stroke-dasharray="5 4"/><text x="${x + 4}" y="${M.top + 14}" font-size="11">${esc(label)}</text>`;
}
const empty = (id: string, title: string, why: string): Chart => ({
  id,
  title,
  svg: frame(
    title,
    `<text x="${M.left + PW / 2}" y="${M.top + PH / 2}" font-size="13" text-anchor="middle" fill="#666">${esc(why)}</text>`,
    '',
    '',
  ),
});

/** Overlaid histograms, each series as the share of its own count per bin (series of different sizes compare). */
export function histogram(
  id: string,
  title: string,
  series: { label: string; values: readonly number[] }[],
  opts: { xLabel: string; min: number; max: number; bins?: number; markers?: { at: number; label: string }[] },
): Chart {
  const used = series.filter((s) => s.values.length > 0);
  if (used.length === 0) return empty(id, title, 'no data');
  const bins = opts.bins ?? 40;
  const width = (opts.max - opts.min) / bins;
  const counts = used.map((s) => {
    const c = new Array(bins).fill(0);
    for (const v of s.values) c[Math.min(bins - 1, Math.max(0, Math.floor((v - opts.min) / width)))]++;
    return c.map((k) => k / s.values.length);
  });
  const top = Math.max(...counts.flat(), 0.01);
  const x = linear(opts.min, opts.max, M.left, M.left + PW);
  const y = linear(0, top * 1.1, M.top + PH, M.top);
  let body = axes(x, y, fmt, (v) => `${Math.round(v * 100)}%`);
  counts.forEach((c, si) => {
    const color = PALETTE[si % PALETTE.length];
    body += c
      .map((share, b) =>
        share > 0
          ? `<rect x="${x.at(opts.min + b * width) + 0.5}" y="${y.at(share)}" width="${Math.max(1, x.at(opts.min + (b + 1) * width) - x.at(opts.min + b * width) - 1)}" height="${M.top + PH - y.at(share)}" fill="${color}" fill-opacity="0.45" stroke="${color}"/>`
          : '',
      )
      .join('');
  });
  for (const m of opts.markers ?? []) body += vline(x.at(m.at), m.label);
  return {
    id,
    title,
    svg: frame(
      title,
      body,
      opts.xLabel,
      'share of the series',
      used.map((s, i) => ({ label: `${s.label} (n=${s.values.length})`, color: PALETTE[i % PALETTE.length] })),
    ),
  };
}

/** Points (x, y) with an optional y = x diagonal, e.g. estimated against true age. */
export function scatter(
  id: string,
  title: string,
  points: readonly { x: number; y: number }[],
  opts: {
    xLabel: string;
    yLabel: string;
    min: number;
    max: number;
    diagonal?: boolean;
    hlines?: { at: number; label: string }[];
  },
): Chart {
  if (points.length === 0) return empty(id, title, 'no data');
  const x = linear(opts.min, opts.max, M.left, M.left + PW);
  const y = linear(opts.min, opts.max, M.top + PH, M.top);
  let body = axes(x, y);
  if (opts.diagonal)
    body += `<line x1="${x.at(opts.min)}" y1="${y.at(opts.min)}" x2="${x.at(opts.max)}" y2="${y.at(opts.max)}" stroke="#888" stroke-dasharray="4 3"/>`;
  for (const h of opts.hlines ?? [])
    body += `<line x1="${M.left}" y1="${y.at(h.at)}" x2="${M.left + PW}" y2="${y.at(h.at)}" stroke="#d1495b" stroke-dasharray="5 4"/><text x="${M.left + 4}" y="${y.at(h.at) - 4}" font-size="11" fill="#d1495b">${esc(h.label)}</text>`;
  const clamp = (v: number) => Math.min(opts.max, Math.max(opts.min, v));
  body += points
    .map(
      (p) =>
        `<circle cx="${x.at(clamp(p.x)).toFixed(1)}" cy="${y.at(clamp(p.y)).toFixed(1)}" r="2.6" fill="${PALETTE[0]}" fill-opacity="0.55"/>`,
    )
    .join('');
  return {
    id,
    title,
    svg: frame(title, body, opts.xLabel, opts.yLabel, [{ label: `n=${points.length}`, color: PALETTE[0] }]),
  };
}

/** Bars with optional 95 % intervals and a label above each bar. */
export function bars(
  id: string,
  title: string,
  items: readonly { label: string; value: number; ci?: { low: number; high: number } | null; note?: string }[],
  opts: { yLabel: string; max?: number; percent?: boolean },
): Chart {
  if (items.length === 0) return empty(id, title, 'no data');
  const top = opts.max ?? Math.max(...items.map((i) => Math.max(i.value, i.ci?.high ?? 0)), 1e-9) * 1.15;
  const y = linear(0, top, M.top + PH, M.top);
  const slot = PW / items.length;
  const show = (v: number) => (opts.percent ? `${+(v * 100).toPrecision(3)}%` : fmt(v));
  let body = axes({ at: () => 0, ticks: [] }, y, fmt, (v) => (opts.percent ? `${Math.round(v * 1000) / 10}%` : fmt(v)));
  items.forEach((it, i) => {
    const x0 = M.left + i * slot + slot * 0.18;
    const bw = slot * 0.64;
    body += `<rect x="${x0}" y="${y.at(it.value)}" width="${bw}" height="${M.top + PH - y.at(it.value)}" fill="${PALETTE[0]}" fill-opacity="0.7"/>`;
    if (it.ci) {
      const cx = x0 + bw / 2;
      body += `<line x1="${cx}" y1="${y.at(it.ci.low)}" x2="${cx}" y2="${y.at(Math.min(top, it.ci.high))}" stroke="#222"/><line x1="${cx - 5}" y1="${y.at(it.ci.low)}" x2="${cx + 5}" y2="${y.at(it.ci.low)}" stroke="#222"/><line x1="${cx - 5}" y1="${y.at(Math.min(top, it.ci.high))}" x2="${cx + 5}" y2="${y.at(Math.min(top, it.ci.high))}" stroke="#222"/>`;
    }
    body += `<text x="${x0 + bw / 2}" y="${y.at(it.value) - 6}" font-size="11" text-anchor="middle">${esc(show(it.value))}</text>`;
    body += `<text x="${x0 + bw / 2}" y="${M.top + PH + 16}" font-size="11" text-anchor="middle">${esc(it.label)}</text>`;
    if (it.note)
      body += `<text x="${x0 + bw / 2}" y="${M.top + PH + 30}" font-size="10" text-anchor="middle" fill="#666">${esc(it.note)}</text>`;
  });
  return { id, title, svg: frame(title, body, '', opts.yLabel) };
}

/** Detection error trade-off: false non-match rate against false match rate, both on log axes. */
export function det(
  id: string,
  title: string,
  curve: readonly { fmr: number; fnmr: number }[],
  operating: { fmr: number; fnmr: number; label: string }[],
): Chart {
  if (curve.length === 0) return empty(id, title, 'no genuine or no impostor pairs');
  const floor = 1e-4;
  const x = log10Scale(floor, 1, M.left, M.left + PW);
  const y = log10Scale(floor, 1, M.top + PH, M.top);
  const pct = (v: number) => `${+(v * 100).toPrecision(2)}%`;
  let body = axes(x, y, pct, pct);
  const pts = curve
    .filter((p) => p.fmr > 0 || p.fnmr > 0)
    .map((p) => `${x.at(Math.max(p.fmr, floor)).toFixed(1)},${y.at(Math.max(p.fnmr, floor)).toFixed(1)}`);
  body += `<polyline points="${pts.join(' ')}" fill="none" stroke="${PALETTE[0]}" stroke-width="2"/>`;
  operating.forEach((o, i) => {
    const cx = x.at(Math.max(o.fmr, floor));
    const cy = y.at(Math.max(o.fnmr, floor));
    body += `<circle cx="${cx}" cy="${cy}" r="5" fill="${PALETTE[(i + 1) % PALETTE.length]}"/><text x="${cx + 8}" y="${cy - 6 - i * 14}" font-size="11">${esc(o.label)}</text>`;
  });
  body += `<text x="${M.left + 6}" y="${M.top + PH - 6}" font-size="10" fill="#666">0 is drawn at ${pct(floor)}</text>`;
  return {
    id,
    title,
    svg: frame(
      title,
      body,
      'false match rate (impostor pairs accepted)',
      'false non-match rate (genuine pairs refused)',
    ),
  };
}

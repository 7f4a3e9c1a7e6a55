/**
 * A bar chart drawn on the server as SVG (no script, no inline style: the admin CSP allows neither). Stacked
 * series; the figures are also in the table beside it, so the chart is `aria-hidden` apart from its title.
 */
export type Series = { key: string; label: string; className: string };

export function BarChart(props: { title: string; rows: { label: string; values: Record<string, number> }[]; series: Series[]; height?: number }) {
  const h = props.height ?? 160;
  const n = props.rows.length || 1;
  const w = Math.max(320, n * 14);
  const max = Math.max(1, ...props.rows.map((r) => props.series.reduce((s, x) => s + (r.values[x.key] ?? 0), 0)));
  const bw = w / n;
  const top = 14;
  const plot = h - top - 18;
  return (
    <figure className="w-full">
      <svg viewBox={`0 0 ${w} ${h}`} className="h-40 w-full" role="img" aria-label={`${props.title} (the figures are in the table below)`} preserveAspectRatio="none">
        <line x1="0" y1={top + plot} x2={w} y2={top + plot} className="stroke-neutral-300" strokeWidth="1" />
        <text x="2" y="10" className="fill-neutral-700 text-[10px]">{max}</text>
        {props.rows.map((r, i) => {
          let y = top + plot;
          return (
            <g key={r.label}>
              {props.series.map((s) => {
                const v = r.values[s.key] ?? 0;
                const bh = (v / max) * plot;
                y -= bh;
                return bh > 0 ? <rect key={s.key} x={i * bw + 1} y={y} width={Math.max(1, bw - 2)} height={bh} className={s.className}><title>{`${r.label} ${s.label}: ${v}`}</title></rect> : null;
              })}
              {(i === 0 || i === n - 1 || n <= 12) ? (
                <text x={i * bw + bw / 2} y={h - 4} textAnchor="middle" className="fill-neutral-700 text-[9px]">{r.label.slice(5)}</text>
              ) : null}
            </g>
          );
        })}
      </svg>
      <figcaption className="mt-1 flex flex-wrap gap-3 text-xs text-neutral-800">
        {props.series.map((s) => (
          <span key={s.key} className="inline-flex items-center gap-1">
            <svg width="10" height="10" aria-hidden="true"><rect width="10" height="10" className={s.className} /></svg>
            {s.label}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}

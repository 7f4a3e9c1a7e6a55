/**
 * A bar chart drawn on the server as SVG (no script, no inline style: the admin CSP allows neither). Stacked
 * series; the figures are also in the table beside it, so the chart is one image with a summary for screen
 * readers. Its words (the scale, the first and last period) are HTML around the SVG, which stretches to the
 * width and would stretch text with it.
 */
export type Series = { key: string; label: string; className: string };

export function BarChart(props: {
  title: string;
  rows: { label: string; values: Record<string, number> }[];
  series: Series[];
  unit: string;
}) {
  const h = 100;
  const n = props.rows.length || 1;
  const w = n * 10;
  const totals = props.rows.map((r) => props.series.reduce((s, x) => s + (r.values[x.key] ?? 0), 0));
  const max = Math.max(1, ...totals);
  const sum = totals.reduce((a, b) => a + b, 0);
  return (
    <figure className="w-full">
      <p className="mb-1 text-xs text-neutral-700">
        Highest: {max} a {props.unit}
      </p>
      <svg
        viewBox={`0 0 ${w} ${h}`}
        className="h-40 w-full"
        role="img"
        aria-label={`${props.title}: ${sum} in all, at most ${max} a ${props.unit} (the figures are in the table)`}
        preserveAspectRatio="none"
      >
        <line
          x1="0"
          y1={h - 0.5}
          x2={w}
          y2={h - 0.5}
          className="stroke-neutral-300"
          strokeWidth="1"
          vectorEffect="non-scaling-stroke"
        />
        {props.rows.map((r, i) => {
          let y = h;
          return (
            <g key={r.label}>
              {props.series.map((s) => {
                const v = r.values[s.key] ?? 0;
                const bh = (v / max) * (h - 2);
                y -= bh;
                return bh > 0 ? (
                  <rect key={s.key} x={i * 10 + 1} y={y} width={8} height={bh} className={s.className}>
                    <title>{`${r.label} ${s.label}: ${v}`}</title>
                  </rect>
                ) : null;
              })}
            </g>
          );
        })}
      </svg>
      <div className="mt-1 flex justify-between text-xs text-neutral-700" aria-hidden="true">
        <span>{props.rows[0]?.label}</span>
        <span>{props.rows[props.rows.length - 1]?.label}</span>
      </div>
      <figcaption className="mt-1 flex flex-wrap gap-3 text-xs text-neutral-800">
        {props.series.map((s) => (
          <span key={s.key} className="inline-flex items-center gap-1">
            <svg width="10" height="10" aria-hidden="true">
              <rect width="10" height="10" className={s.className} />
            </svg>
            {s.label}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}

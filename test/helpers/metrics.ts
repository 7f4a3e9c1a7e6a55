/** Reading this process's metrics in a test (lib/core/observability/metrics.ts). */
import { metrics } from '@/lib/core/observability/metrics';

/** The sum of a counter's series whose labels include `labels` (0 when there is none). */
export async function counterValue(name: string, labels: Record<string, string>): Promise<number> {
  const m = (await metrics().registry.getMetricsAsJSON()).find((x) => x.name === name);
  return (m?.values ?? [])
    .filter((v) => Object.entries(labels).every(([k, x]) => v.labels[k] === x))
    .reduce((n, v) => n + v.value, 0);
}

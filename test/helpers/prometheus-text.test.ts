/** The Prometheus text parser the scrape tests read /metrics with: on prom-client's own output, and on bad input. */
import { describe, expect, it } from 'vitest';
import client from 'prom-client';
import { parsePrometheusText, PrometheusTextError, sampleNames } from './prometheus-text';

describe('parsePrometheusText', () => {
  it("reads prom-client's exposition: families by TYPE, histogram samples under their family, escaped labels and help", async () => {
    const registry = new client.Registry();
    const c = new client.Counter({
      name: 'things_total',
      help: 'Things, with a \\ and a\nnew line.',
      labelNames: ['kind'],
      registers: [registry],
    });
    c.inc({ kind: 'a "quoted" \\ value\nnext line' }, 2);
    c.inc({ kind: 'plain' });
    new client.Gauge({ name: 'level', help: 'A level.', registers: [registry] }).set(-1.5);
    const h = new client.Histogram({
      name: 'wait_seconds',
      help: 'Waits.',
      labelNames: ['route'],
      buckets: [0.1, 1],
      registers: [registry],
    });
    h.observe({ route: '/v1/verifications/{id}' }, 0.5);
    const families = parsePrometheusText(await registry.metrics());

    expect([...families.keys()].sort()).toEqual(['level', 'things_total', 'wait_seconds']);
    const things = families.get('things_total')!;
    expect(things.type).toBe('counter');
    expect(things.help).toBe('Things, with a \\ and a\nnew line.');
    expect(things.samples).toContainEqual({
      name: 'things_total',
      labels: { kind: 'a "quoted" \\ value\nnext line' },
      value: 2,
    });
    expect(things.samples).toContainEqual({ name: 'things_total', labels: { kind: 'plain' }, value: 1 });
    expect(families.get('level')!.samples).toEqual([{ name: 'level', labels: {}, value: -1.5 }]);
    const wait = families.get('wait_seconds')!;
    expect(wait.type).toBe('histogram');
    expect(wait.samples.filter((s) => s.name === 'wait_seconds_bucket').map((s) => [s.labels.le, s.value])).toEqual([
      ['0.1', 0],
      ['1', 1],
      ['+Inf', 1],
    ]);
    expect(wait.samples.find((s) => s.name === 'wait_seconds_sum')!.value).toBe(0.5);
    expect(sampleNames(families)).toEqual(
      new Set(['things_total', 'level', 'wait_seconds_bucket', 'wait_seconds_sum', 'wait_seconds_count']),
    );
  });

  it('reads special values, timestamps, comments, a trailing comma; an untyped sample is its own family', () => {
    const f = parsePrometheusText('# a comment\nx{a="1",} NaN 1700000000000\ny +Inf\nz -Inf\n');
    expect(Number.isNaN(f.get('x')!.samples[0].value)).toBe(true);
    expect(f.get('x')!.samples[0].labels).toEqual({ a: '1' });
    expect(f.get('y')!.samples[0].value).toBe(Infinity);
    expect(f.get('z')!.type).toBe('untyped');
  });

  it.each([
    ['a sample without a value', 'x{a="1"}\n'],
    ['a value that is not a number', 'x 12abc\n'],
    ['an unquoted label value', 'x{a=1} 1\n'],
    ['an unterminated label value', 'x{a="1} 1\n'],
    ['a label given twice', 'x{a="1",a="2"} 1\n'],
    ['a bad metric name', '1x 1\n'],
    ['a TYPE after the samples', 'x 1\n# TYPE x counter\n'],
    ['a TYPE given twice', '# TYPE x counter\n# TYPE x counter\n'],
    ['an unknown type', '# TYPE x meter\n'],
    ['a histogram bucket without le', '# TYPE h histogram\nh_bucket 1\n'],
    ['a bad timestamp', 'x 1 yesterday\n'],
  ])('refuses %s', (_, text) => {
    expect(() => parsePrometheusText(text)).toThrow(PrometheusTextError);
  });
});

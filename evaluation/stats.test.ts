import { describe as suite, expect, it } from 'vitest';
import { describe, lowest } from './stats';

suite('describe', () => {
  it('summarises half a million impostor scores (a set of one-photo people) without overflowing the stack', () => {
    const xs = Array.from({ length: 600_000 }, (_, i) => ((i * 7919) % 600_000) / 600_000);
    expect(describe(xs)).toEqual({ n: 600_000, min: 0, p5: 0.05, median: 0.5, p95: 0.95, max: 1 });
  });
});

suite('lowest', () => {
  it('finds the smallest of several long lists, and Infinity of none', () => {
    const long = Array.from({ length: 600_000 }, (_, i) => 1 - i / 1e6);
    expect(lowest([0.5], long, [])).toBe(long[long.length - 1]);
    expect(lowest()).toBe(Infinity);
  });
});

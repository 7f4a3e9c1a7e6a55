import { describe, expect, it } from 'vitest';
import { randomBytesPooled } from './random';
import { newId, uuidv7 } from '../ids';

describe('pooled random bytes', () => {
  it('never hands out the same bytes twice, across refills of the pool', () => {
    // 2,000 × 12 bytes spans several 4 KiB pools; 96-bit values that repeat would mean bytes handed out twice.
    const seen = new Set<string>();
    const views: Buffer[] = [];
    for (let i = 0; i < 2000; i++) {
      const b = randomBytesPooled(12);
      expect(b.byteLength).toBe(12);
      seen.add(b.toString('hex'));
      views.push(b);
    }
    expect(seen.size).toBe(2000);
    // A caller overwriting its bytes (uuidv7 writes its time into them) changes nobody else's.
    const before = views.map((v) => v.toString('hex'));
    for (const v of views) v.fill(0);
    const next = randomBytesPooled(12);
    expect(next.equals(Buffer.alloc(12))).toBe(false);
    expect(before.filter((h) => h === next.toString('hex'))).toEqual([]);
  });

  it('a request over the pooled size gets its own bytes', () => {
    const a = randomBytesPooled(100);
    const b = randomBytesPooled(100);
    expect(a.byteLength).toBe(100);
    expect(a.equals(b)).toBe(false);
  });

  it('ids keep their form: 10 time digits and 16 random base32 digits; UUIDv7 with its version and variant', () => {
    const ids = Array.from({ length: 1000 }, () => newId('req'));
    for (const id of ids) expect(id).toMatch(/^req_[0-9a-hjkmnp-tv-z]{26}$/);
    expect(new Set(ids.map((id) => id.slice(14))).size).toBe(1000);
    // Every random digit position takes many values (a digit stuck at one value would be a lost 5 bits).
    for (let i = 14; i < 30; i++) expect(new Set(ids.map((id) => id[i])).size).toBeGreaterThan(20);
    expect(uuidv7()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});

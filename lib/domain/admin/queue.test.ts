import { describe, expect, it } from 'vitest';
import { openingMode } from './queue';

describe('the review queue opens on the tab with cases waiting', () => {
  it('only test cases waiting: the Test tab', () => expect(openingMode(null, { live: 0, test: 1 })).toBe('test'));
  it('live cases waiting, or none at all: the Live tab', () => {
    expect(openingMode(null, { live: 2, test: 5 })).toBe('live');
    expect(openingMode(null, { live: 0, test: 0 })).toBe('live');
  });
  it('a tab the address names is kept', () => {
    expect(openingMode('live', { live: 0, test: 3 })).toBe('live');
    expect(openingMode('test', { live: 3, test: 0 })).toBe('test');
  });
});

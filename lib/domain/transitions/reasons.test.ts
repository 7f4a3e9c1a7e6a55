/**
 * The reason codes integrators read (docs/api.md "Decision reasons", docs/webhooks.md "Reason codes") are the
 * table of reasons.ts, row for row: a reason added, renamed or moved to another status there fails here until the
 * docs say the same.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DECLINE_REASONS, REASON_CODES, REASONS, RESUBMIT_REASONS, reasonLabel } from './reasons';

const root = path.resolve(import.meta.dirname, '../../..');

/** The rows of the first table under a heading: [code, status, meaning]. */
function tableUnder(file: string, heading: string): string[][] {
  const text = fs.readFileSync(path.join(root, file), 'utf8');
  const start = text.indexOf(`${heading}\n`);
  expect(start, `${file} has "${heading}"`).toBeGreaterThan(-1);
  const lines = text.slice(start).split('\n');
  const first = lines.findIndex((l) => l.startsWith('|'));
  const rows: string[][] = [];
  for (const l of lines.slice(first + 2)) {
    if (!l.startsWith('|')) break;
    rows.push(
      l
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim()),
    );
  }
  return rows;
}

const expected = REASON_CODES.map((r) => [
  `\`${r}\``,
  `\`${REASONS[r].status}\``,
  `${REASONS[r].extension ? 'extension: ' : ''}${REASONS[r].meaning}`,
]);

describe('the reason codes', () => {
  it('docs/api.md "Decision reasons" lists exactly the table, in its order', () => {
    expect(tableUnder('docs/api.md', '### Decision reasons')).toEqual(expected);
  });

  it('docs/webhooks.md "Reason codes" lists exactly the table, in its order', () => {
    expect(tableUnder('docs/webhooks.md', '## Reason codes')).toEqual(expected);
  });

  it('splits into the decline and the resubmission reasons, each once', () => {
    expect([...DECLINE_REASONS, ...RESUBMIT_REASONS].sort()).toEqual([...REASON_CODES].sort());
    expect(DECLINE_REASONS).toContain('age_below_threshold');
    expect(RESUBMIT_REASONS).toContain('document_required');
  });

  it('labels a known code from the table, and a code it does not know by its words', () => {
    expect(reasonLabel('document_expired')).toBe('Document expired');
    expect(reasonLabel('some_old_code')).toBe('some old code');
    expect(reasonLabel(null)).toBe('');
  });
});

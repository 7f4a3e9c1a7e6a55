/**
 * The pipeline's checks are the table of list.ts, row for row: decide() runs its rows in its order, each row has
 * its module, and the docs that list the checks (docs/accuracy.md "How a decision is made: the pipeline",
 * docs/operating.md's pipeline_stage_duration_seconds) say the same, in the same order.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checksFor } from '../decide';
import type { Evidence } from './types';
import { PIPELINE_CHECKS } from './list';

const root = path.resolve(import.meta.dirname, '../../../..');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');
const ids = PIPELINE_CHECKS.map((c) => c.id);
const rowsOf = (p: 'estimation' | 'document') =>
  PIPELINE_CHECKS.filter((c) => c.path === 'common' || c.path === p).map((c) => c.id);

const ROUTES: [Pick<Evidence, 'flow' | 'checkMethod' | 'stepUp'>, 'estimation' | 'document'][] = [
  [{ flow: 'age', checkMethod: 'estimation' }, 'estimation'],
  [{ flow: 'age', checkMethod: 'estimation', stepUp: 'document' }, 'document'],
  [{ flow: 'age', checkMethod: 'document_verification' }, 'document'],
  [{ flow: 'kyc', checkMethod: null }, 'document'],
];

describe('the pipeline checks table', () => {
  it.each(ROUTES)('decide() runs the rows of its path in the table order (%o)', (route, p) => {
    expect(checksFor(route).map((c) => c.name)).toEqual(rowsOf(p));
  });

  it('every row is run by some flow', () => {
    const run = new Set(ROUTES.flatMap(([route]) => checksFor(route).map((c) => c.name)));
    expect(ids.filter((id) => !run.has(id))).toEqual([]);
  });

  it('every row names a module of this folder', () => {
    expect(
      PIPELINE_CHECKS.filter((c) => !fs.existsSync(path.join(import.meta.dirname, `${c.module}.ts`))).map(
        (c) => c.module,
      ),
    ).toEqual([]);
  });

  it('docs/accuracy.md "How a decision is made: the pipeline" lists the modules in the table order', () => {
    const lines = read('docs/accuracy.md').split('\n');
    const header = lines.findIndex(
      (l, i) =>
        l.startsWith('| check (module)') &&
        lines.slice(0, i).some((h) => h === '## How a decision is made: the pipeline'),
    );
    const end = lines.findIndex((l, i) => i > header && !l.startsWith('|'));
    const table = lines.slice(header + 2, end);
    expect(table.map((l) => /\(`([a-z-]+)`\) \|/.exec(l)?.[1])).toEqual(PIPELINE_CHECKS.map((c) => c.module));
  });

  it('docs/operating.md names each check as a stage of pipeline_stage_duration_seconds, in the table order', () => {
    const line = read('docs/operating.md')
      .split('\n')
      .find((l) => l.startsWith('| `pipeline_stage_duration_seconds`'))!;
    const list = /each check \(([^)]*)\)/.exec(line)![1];
    expect(list.split(', ').map((s) => s.replace(/`/g, ''))).toEqual(ids);
  });
});

/**
 * No build step at run time: the analysis worker is built ahead of time (npm run build, the test setup), and a
 * process that finds it missing or older than its sources stops with the command to run instead of building it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resetEnvCache } from '../../core/env';
import { analysisWorkerFile, AnalysisWorkerNotBuiltError } from './worker-file';

const dir = path.join('lib', 'domain', 'media');
let root: string;
const saved = process.env.OPEN_VERIFY_ROOT;

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'ov-worker-'));
  fs.mkdirSync(path.join(root, dir), { recursive: true });
  fs.writeFileSync(path.join(root, dir, 'worker.ts'), 'export {};\n');
  process.env.OPEN_VERIFY_ROOT = root;
  resetEnvCache();
});
afterEach(() => {
  if (saved === undefined) delete process.env.OPEN_VERIFY_ROOT;
  else process.env.OPEN_VERIFY_ROOT = saved;
  resetEnvCache();
  fs.rmSync(root, { recursive: true, force: true });
});

const built = (at: Date) => {
  const out = path.join(root, dir, 'analysis-worker.generated.mjs');
  fs.writeFileSync(out, '// built\n');
  fs.writeFileSync(
    path.join(root, dir, 'analysis-worker.generated.inputs.json'),
    JSON.stringify([path.join(dir, 'worker.ts')]),
  );
  fs.utimesSync(out, at, at);
  return out;
};

describe('the analysis worker file', () => {
  it('is refused when missing, with the command that builds it, and not built here', () => {
    expect(() => analysisWorkerFile()).toThrow(AnalysisWorkerNotBuiltError);
    expect(() => analysisWorkerFile()).toThrow(/has not been built: run `npm run build`/);
    expect(fs.existsSync(path.join(root, dir, 'analysis-worker.generated.mjs'))).toBe(false);
  });

  it('is refused when older than one of its sources, naming the source', () => {
    built(new Date(Date.now() - 60_000));
    expect(() => analysisWorkerFile()).toThrow(/is older than lib\/domain\/media\/worker\.ts: run `npm run build`/);
  });

  it('is used as built when newer than its sources', () => {
    const out = built(new Date(Date.now() + 60_000));
    expect(analysisWorkerFile()).toBe(out);
    expect(fs.readFileSync(out, 'utf8')).toBe('// built\n');
  });
});

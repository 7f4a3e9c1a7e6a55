/**
 * The file the analysis pool starts: the TypeScript worker (lib/domain/media/worker.ts) bundled into one ES module by
 * server/build-analysis-worker.mjs. Built on npm install and before `next build`; rebuilt here, before the pool
 * starts, when it is missing or older than one of its sources (editing lib/ under tsx or vitest).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { projectPath } from '../../core/project-path';

const OUTPUT = ['lib', 'domain', 'media', 'analysis-worker.generated.mjs'];
const INPUTS = ['lib', 'domain', 'media', 'analysis-worker.generated.inputs.json'];

function stale(): boolean {
  const out = projectPath(...OUTPUT);
  if (!fs.existsSync(out) || !fs.existsSync(projectPath(...INPUTS))) return true;
  const built = fs.statSync(out).mtimeMs;
  const inputs = JSON.parse(fs.readFileSync(projectPath(...INPUTS), 'utf8')) as string[];
  return inputs.some((f) => {
    const p = projectPath(f);
    return !fs.existsSync(p) || fs.statSync(p).mtimeMs > built;
  });
}

export function analysisWorkerFile(): string {
  if (stale()) execFileSync(process.execPath, [projectPath('server', 'build-analysis-worker.mjs'), '--quiet'], { stdio: 'inherit' });
  return projectPath(...OUTPUT);
}

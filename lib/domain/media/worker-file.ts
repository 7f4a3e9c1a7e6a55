/**
 * The file the analysis pool starts: the TypeScript worker (lib/domain/media/worker.ts) bundled into one ES module by
 * server/build-analysis-worker.mjs. It is built ahead of time, never at run time: by `npm run build` (its prebuild
 * step), on npm install, before `npm run dev`, by the test setup, and alone by `npm run build:worker`. A server
 * without it, or with one older than a source it was built from, refuses to start and names the command
 * (docs/architecture.md "Layers", "No hidden work").
 */
import fs from 'node:fs';
import path from 'node:path';
import { projectPath as projectPathOf } from '../../core/project-path';

const OUTPUT = ['lib', 'domain', 'media', 'analysis-worker.generated.mjs'];
const INPUTS = ['lib', 'domain', 'media', 'analysis-worker.generated.inputs.json'];
const NAME = OUTPUT.join('/');

/** The worker file is missing or older than its sources: the message says which, and the command that builds it. */
export class AnalysisWorkerNotBuiltError extends Error {}

/**
 * Why the built worker cannot be used (missing, or older than one of its sources), or null when it can. `root`: the
 * project's folder (by default the one the server runs from, OPEN_VERIFY_ROOT or the working directory).
 */
export function analysisWorkerProblem(root?: string): string | null {
  const projectPath = (...parts: string[]) =>
    root === undefined ? projectPathOf(...parts) : path.join(root, ...parts);
  const out = projectPath(...OUTPUT);
  if (!fs.existsSync(out) || !fs.existsSync(projectPath(...INPUTS))) {
    return `The image-analysis worker (${NAME}) has not been built: run \`npm run build\` (or \`npm run build:worker\` for this file alone).`;
  }
  const built = fs.statSync(out).mtimeMs;
  const inputs = JSON.parse(fs.readFileSync(projectPath(...INPUTS), 'utf8')) as string[];
  const newer = inputs.find((f) => {
    const p = projectPath(f);
    return !fs.existsSync(p) || fs.statSync(p).mtimeMs > built;
  });
  return newer === undefined
    ? null
    : `The image-analysis worker (${NAME}) is older than ${newer}: run \`npm run build\` (or \`npm run build:worker\`) again.`;
}

export function analysisWorkerFile(): string {
  const problem = analysisWorkerProblem();
  if (problem) throw new AnalysisWorkerNotBuiltError(problem);
  return projectPathOf(...OUTPUT);
}

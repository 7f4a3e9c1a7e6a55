/**
 * A worker thread of the image-analysis pool (lib/domain/media/pool.ts): loads the face models once, then analyses on
 * request. Bundled by server/build-analysis-worker.mjs into lib/domain/media/analysis-worker.generated.mjs, which is
 * what the pool starts (Next, tsx and vitest alike).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { loadFaceModels } from '../faces/models';
import { analyze } from './analyze';

export type WorkerRequest = { id: number; bytes: Uint8Array; kind: 'selfie' | 'document' };
/** What the pool gives each worker: `pause`, a shared flag the pool sets to 1 while this worker's job must yield. */
export type WorkerInit = { pause?: SharedArrayBuffer };

/** The longest a job waits at one step for the flag to clear: a guard, never reached while the pool works. */
const MAX_PAUSE_MS = 10_000;
const init = workerData as WorkerInit | undefined;
const flag = init?.pause ? new Int32Array(init.pause) : null;

/**
 * Called by the analysis between its steps: while the pool has set this worker's flag (a reserve worker is running
 * another workspace's job above the ordinary workers' count), the thread sleeps here, so that job has the core
 * (lib/domain/media/pool.ts; docs/performance.md "Fairness between workspaces under a flood").
 */
function yieldWhilePaused() {
  if (!flag || Atomics.load(flag, 0) === 0) return;
  const from = Date.now();
  const until = from + MAX_PAUSE_MS;
  while (Atomics.load(flag, 0) !== 0 && Date.now() < until) Atomics.wait(flag, 0, 1, until - Date.now());
  yieldedMs += Date.now() - from;
}
/** How long the current job has slept at its steps, reported with its result. */
let yieldedMs = 0;

const ready = loadFaceModels();
ready.then(
  () => parentPort?.postMessage({ type: 'ready' }),
  (e: unknown) => parentPort?.postMessage({ type: 'fatal', error: String((e as Error)?.stack ?? e) }),
);

parentPort?.on('message', async (msg: WorkerRequest) => {
  yieldedMs = 0;
  try {
    const models = await ready;
    const r = await analyze(models, msg, yieldWhilePaused);
    const stored = new Uint8Array(r.stored);
    parentPort?.postMessage({ type: 'result', id: msg.id, result: { ...r, stored }, yieldedMs }, [stored.buffer]);
  } catch (e) {
    const err = e as Error;
    parentPort?.postMessage({ type: 'error', id: msg.id, error: err?.message ?? String(e), yieldedMs });
  }
});

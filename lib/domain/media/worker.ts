/**
 * A worker thread of the image-analysis pool (lib/domain/media/pool.ts): loads the face models once, then analyses on
 * request. Bundled by server/build-analysis-worker.mjs into lib/domain/media/analysis-worker.generated.mjs, which is
 * what the pool starts (Next, tsx and vitest alike).
 */
import { parentPort } from 'node:worker_threads';
import { loadFaceModels } from '../faces/models';
import { analyze } from './analyze';

export type WorkerRequest = { id: number; bytes: Uint8Array; kind: 'selfie' | 'document' };

const ready = loadFaceModels();
ready.then(
  () => parentPort?.postMessage({ type: 'ready' }),
  (e: unknown) => parentPort?.postMessage({ type: 'fatal', error: String((e as Error)?.stack ?? e) }),
);

parentPort?.on('message', async (msg: WorkerRequest) => {
  try {
    const models = await ready;
    const r = await analyze(models, msg);
    const stored = new Uint8Array(r.stored);
    parentPort?.postMessage({ type: 'result', id: msg.id, result: { ...r, stored } }, [stored.buffer]);
  } catch (e) {
    const err = e as Error;
    parentPort?.postMessage({ type: 'error', id: msg.id, error: err?.message ?? String(e) });
  }
});

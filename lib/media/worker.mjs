// @ts-check
/** A worker thread of the image-analysis pool: loads Human once, then analyses on request. */
import { parentPort } from 'node:worker_threads';
import { loadHuman } from '../faces/human-node.mjs';
import { analyze } from './analyze.mjs';

const ready = loadHuman();
ready.then(
  () => parentPort?.postMessage({ type: 'ready' }),
  (e) => parentPort?.postMessage({ type: 'fatal', error: String(e?.stack ?? e) }),
);

parentPort?.on('message', async (/** @type {{ id: number, bytes: Uint8Array, kind: 'selfie' | 'document' }} */ msg) => {
  try {
    const human = await ready;
    const r = await analyze(human, msg);
    const stored = new Uint8Array(r.stored);
    parentPort?.postMessage({ type: 'result', id: msg.id, result: { ...r, stored } }, [stored.buffer]);
  } catch (e) {
    const err = /** @type {Error} */ (e);
    parentPort?.postMessage({ type: 'error', id: msg.id, error: err?.message ?? String(e) });
  }
});

/**
 * A pool of worker threads for image analysis, sized to the machine, each loading Human once. Keeps
 * the CPU-heavy work (decode, face models, pixel statistics) off the request event loop.
 */
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { env } from '../env';
import type { Analysis } from './types';
import { analysisWorkerFile } from './worker-file';

type Job = { id: number; bytes: Uint8Array; kind: 'selfie' | 'document'; resolve: (a: Analysis) => void; reject: (e: Error) => void };
type Slot = { worker: Worker; ready: Promise<void>; busy: Job | null };

// The TypeScript worker bundled into one ES module (lib/media/worker-file.ts), the same in Next, tsx and vitest.
const workerFile = () => analysisWorkerFile();

export class AnalysisPool {
  private slots: Slot[] = [];
  private queue: Job[] = [];
  private nextId = 1;

  /**
   * One core is left to the request loop and the database: with every core analysing, a 2-core machine
   * measured GET p99 121 ms during uploads; with cores − 1 workers, 69 ms (npm run bench:media).
   */
  constructor(readonly size = Math.max(1, Math.min(4, os.availableParallelism() - 1))) {
    for (let i = 0; i < size; i++) this.slots.push(this.spawn());
  }

  private spawn(): Slot {
    const worker = new Worker(workerFile());
    worker.unref();
    const slot: Slot = { worker, busy: null, ready: Promise.resolve() };
    slot.ready = new Promise((resolve, reject) => {
      worker.on('message', (m: { type: string; id?: number; result?: Analysis; error?: string }) => {
        if (m.type === 'ready') return resolve();
        if (m.type === 'fatal') return reject(new Error(m.error));
        const job = slot.busy;
        slot.busy = null;
        if (job && m.id === job.id) {
          if (m.type === 'result') job.resolve({ ...m.result!, stored: Buffer.from(m.result!.stored) });
          else job.reject(new Error(m.error));
        }
        this.pump();
      });
    });
    worker.on('error', (e) => {
      slot.busy?.reject(e);
      slot.busy = null;
      // Replace a crashed worker so the pool keeps its size.
      const i = this.slots.indexOf(slot);
      if (i >= 0) this.slots[i] = this.spawn();
      this.pump();
    });
    return slot;
  }

  analyze(bytes: Uint8Array, kind: 'selfie' | 'document'): Promise<Analysis> {
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, bytes, kind, resolve, reject });
      this.pump();
    });
  }

  /** Resolves once every worker has loaded its models. */
  async ready() {
    await Promise.all(this.slots.map((s) => s.ready));
  }

  private pump() {
    for (const slot of this.slots) {
      if (slot.busy || this.queue.length === 0) continue;
      const job = this.queue.shift()!;
      slot.busy = job;
      slot.ready.then(
        () => slot.worker.postMessage({ id: job.id, bytes: job.bytes, kind: job.kind }),
        (e) => {
          slot.busy = null;
          job.reject(e);
        },
      );
    }
  }

  async close() {
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }
}

const g = globalThis as unknown as { __ovPool?: AnalysisPool };
/** The process's pool, created on first use. */
export function analysisPool(): AnalysisPool {
  g.__ovPool ??= new AnalysisPool(env().ANALYSIS_WORKERS);
  return g.__ovPool;
}

/**
 * A pool of worker threads for image analysis, sized to the machine, each loading Human once. Keeps
 * the CPU-heavy work (decode, face models, pixel statistics) off the request event loop.
 *
 * Its queue is bounded and fair: one queue per verification, grouped by workspace, served least recently
 * first, so one flooding workspace delays only itself; past a bound an upload is refused at once with 503
 * ANALYSIS_QUEUE_FULL. Reserve workers take only jobs of a workspace with nothing being analysed. Why, and how
 * the workers yield: docs/architecture.md "Notes behind the code", docs/performance.md "Fairness between
 * workspaces under a flood".
 */
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { env } from '../../core/env';
import { DomainError } from '../../core/errors';
import { onShutdown } from '../../core/lifecycle';
import { metrics } from '../../core/observability/metrics';
import { inSpan } from '../../core/observability/tracing';
import type { Analysis } from './types';
import { analysisWorkerFile } from './worker-file';
import { isPressing, notePressure } from './pressure';

export type AnalysisOwner = { workspace: string; verification: string };
export type QueueLimits = { perVerification: number; perWorkspace: number; total: number };

type Job = {
  id: number;
  bytes: Uint8Array;
  kind: 'selfie' | 'document';
  owner: AnalysisOwner;
  /** performance.now() when it was queued: its wait is measured here, in the main thread, not in the worker. */
  queuedAt: number;
  resolve: (a: Analysis) => void;
  reject: (e: Error) => void;
};
type Slot = {
  worker: Worker;
  ready: Promise<void>;
  isReady: boolean;
  failed: boolean;
  busy: Job | null;
  startedAt: number;
  reserve: boolean;
  /** Shared with the worker: 1 while its job must yield at its next step (lib/domain/media/worker.ts). */
  pause: Int32Array;
  /** The reserve worker whose job this one yields to, while it runs. */
  yieldingTo: Slot | null;
};

// The TypeScript worker bundled into one ES module (lib/domain/media/worker-file.ts), the same in Next, tsx and vitest.
const workerFile = () => analysisWorkerFile();

/** Waiting jobs (not counting those being analysed): at most 2 per verification, 8 per workspace, 16 in all. */
export const DEFAULT_QUEUE_LIMITS: QueueLimits = { perVerification: 2, perWorkspace: 8, total: 16 };

/**
 * What libvips says when it cannot decode a file (a truncated JPEG: "VipsJpeg: premature end of JPEG image",
 * PNG: "vipspng: libpng read error", WebP: "Input buffer has corrupt header: …"): the file's fault, not ours.
 */
const DECODE_FAILURE = /^(vips\w*:|input (buffer|file) |\w+load(_buffer)?:)/i;

export function undecodable(message: string): DomainError {
  return new DomainError('UNSUPPORTED_MEDIA_TYPE', 'The file is damaged or not a readable image.', {
    failed_checks: ['UNSUPPORTED_MEDIA_TYPE'],
    checks: { decode: { value: 'failed', detail: message.slice(0, 200), passed: false } },
  });
}

/**
 * Keys with work waiting, served least recently served first (a key never served, or not for longest, goes
 * next): a key that just had its turn waits behind every other waiting key, whatever the order they came in.
 */
class FairQueue<T> {
  readonly map = new Map<string, T>();
  private lastServed = new Map<string, number>();
  private tick = 0;
  get(key: string) {
    return this.map.get(key);
  }
  set(key: string, value: T) {
    this.map.set(key, value);
  }
  delete(key: string) {
    this.map.delete(key);
  }
  /** The waiting key served least recently (of those `allowed`), marked as served now. */
  next(allowed: (key: string) => boolean = () => true): string | undefined {
    let best: string | undefined;
    let bestAt = Infinity;
    for (const key of this.map.keys()) {
      if (!allowed(key)) continue;
      const at = this.lastServed.get(key) ?? -1;
      if (at < bestAt) [best, bestAt] = [key, at];
    }
    if (best === undefined) return undefined;
    this.lastServed.set(best, ++this.tick);
    // Forget keys with nothing waiting once the memory would grow (their turn order no longer matters much).
    if (this.lastServed.size > 10_000)
      for (const k of this.lastServed.keys()) if (!this.map.has(k)) this.lastServed.delete(k);
    return best;
  }
  get size() {
    return this.map.size;
  }
}

export class AnalysisPool {
  private slots: Slot[] = [];
  /** workspace → verification → waiting jobs */
  private waiting = new FairQueue<FairQueue<Job[]>>();
  private queued = 0;
  private nextId = 1;
  /** Time jobs have slept at their steps, yielding to a reserve worker's job (health()). */
  private yieldedMs = 0;
  /** Exponentially weighted mean of a job's time, for Retry-After. */
  private avgJobMs = 1000;
  private closed = false;

  /**
   * One core is left to the request loop and the database: with every core analysing, a 2-core machine
   * measured GET p99 121 ms during uploads; with cores − 1 workers, 69 ms (npm run bench:media).
   */
  constructor(
    readonly size = Math.max(1, Math.min(4, os.availableParallelism() - 1)),
    readonly limits: QueueLimits = DEFAULT_QUEUE_LIMITS,
    /** Workers beyond `size` that only take a job of a workspace with nothing being analysed (see above). */
    readonly reserve = 0,
  ) {
    for (let i = 0; i < size + reserve; i++) this.slots.push(this.spawn(i >= size));
  }

  private spawn(reserve: boolean): Slot {
    const pause = new Int32Array(new SharedArrayBuffer(4));
    const worker = new Worker(workerFile(), { workerData: { pause: pause.buffer } });
    worker.unref();
    const slot: Slot = {
      worker,
      busy: null,
      ready: Promise.resolve(),
      isReady: false,
      failed: false,
      startedAt: 0,
      reserve,
      pause,
      yieldingTo: null,
    };
    slot.ready = new Promise((resolve, reject) => {
      worker.on(
        'message',
        (m: { type: string; id?: number; result?: Analysis; error?: string; yieldedMs?: number }) => {
          if (m.type === 'ready') {
            slot.isReady = true;
            resolve();
            return this.pump();
          }
          if (m.type === 'fatal') {
            slot.failed = true;
            reject(new Error(m.error));
            return this.failWaitingIfNoWorker();
          }
          const job = slot.busy;
          slot.busy = null;
          // A reserve's job ended: the worker that yielded to it resumes. A job that ended while asked to yield (past its
          // last step) leaves its worker free of the flag.
          this.resumeYieldingTo(slot);
          if (slot.yieldingTo) this.resume(slot);
          if (job && m.id === job.id) {
            this.yieldedMs += m.yieldedMs ?? 0;
            const ms = performance.now() - slot.startedAt;
            this.avgJobMs = 0.8 * this.avgJobMs + 0.2 * ms;
            metrics().analysisDuration.observe({ kind: job.kind }, ms / 1000);
            if (m.type === 'result') job.resolve({ ...m.result!, stored: Buffer.from(m.result!.stored) });
            else job.reject(DECODE_FAILURE.test(m.error ?? '') ? undecodable(m.error!) : new Error(m.error));
          }
          this.pump();
        },
      );
    });
    slot.ready.catch(() => {}); // a worker that cannot load is reported by health(), and its job rejected
    worker.on('error', (e) => {
      slot.busy?.reject(e);
      slot.busy = null;
      this.resumeYieldingTo(slot);
      if (this.closed) return;
      // Replace a crashed worker so the pool keeps its size.
      const i = this.slots.indexOf(slot);
      if (i >= 0) this.slots[i] = this.spawn(slot.reserve);
      this.pump();
    });
    return slot;
  }

  /**
   * Analyses an image for one verification of one workspace. Refused at once (503 ANALYSIS_QUEUE_FULL,
   * with Retry-After) when that verification, that workspace or the whole pool already has its bound waiting.
   */
  analyze(bytes: Uint8Array, kind: 'selfie' | 'document', owner?: AnalysisOwner): Promise<Analysis> {
    // Inside a trace (an upload, a decision re-running an old analysis), a span from queueing to the result.
    return inSpan('analysis', { attributes: { 'open_verify.analysis.kind': kind } }, () =>
      this.admit(bytes, kind, owner),
    );
  }

  private admit(bytes: Uint8Array, kind: 'selfie' | 'document', owner?: AnalysisOwner): Promise<Analysis> {
    // No owner: a trusted caller of the process itself (calibration, tests): queued fairly, never refused.
    if (!owner) return this.enqueue(bytes, kind, { workspace: '(internal)', verification: `(internal)${this.nextId}` });
    const ws = this.waiting.get(owner.workspace);
    const mine = ws?.get(owner.verification)?.length ?? 0;
    const theirs = this.waitingOf(owner.workspace);
    const idle = this.slots.some((s) => s.isReady && !s.busy && !s.reserve) && this.queued === 0;
    if (!idle) {
      const full =
        mine >= this.limits.perVerification
          ? 'this verification'
          : theirs >= this.limits.perWorkspace
            ? 'this workspace'
            : this.queued >= this.limits.total
              ? 'the server'
              : null;
      if (full) {
        notePressure(owner.workspace);
        return Promise.reject(this.queueFull(full, mine));
      }
    }
    return this.enqueue(bytes, kind, owner);
  }

  private enqueue(bytes: Uint8Array, kind: 'selfie' | 'document', owner: AnalysisOwner): Promise<Analysis> {
    return new Promise((resolve, reject) => {
      const job: Job = { id: this.nextId++, bytes, kind, owner, queuedAt: performance.now(), resolve, reject };
      let byWs = this.waiting.get(owner.workspace);
      if (!byWs) this.waiting.set(owner.workspace, (byWs = new FairQueue<Job[]>()));
      const q = byWs.get(owner.verification) ?? [];
      q.push(job);
      byWs.set(owner.verification, q);
      this.queued++;
      this.pump();
    });
  }

  private queueFull(scope: string, ahead: number): DomainError {
    metrics().analysisRefusals.inc({ scope: scope.replace(/^this |^the /, '') });
    const seconds = Math.min(30, Math.max(1, Math.ceil(((ahead + 1) * this.avgJobMs) / 1000)));
    return new DomainError(
      'ANALYSIS_QUEUE_FULL',
      `Too many images are waiting for analysis for ${scope}. Retry after ${seconds} s.`,
      { scope: scope.replace(/^this |^the /, ''), retry_after: seconds },
      seconds,
    );
  }

  /**
   * The next job, fairly: the workspace served least recently, then its verification served least recently. For
   * a reserve worker, only of a workspace with nothing being analysed.
   */
  private take(forReserve = false): Job | undefined {
    const running = new Map<string, number>();
    for (const s of this.slots)
      if (s.busy) running.set(s.busy.owner.workspace, (running.get(s.busy.owner.workspace) ?? 0) + 1);
    // A reserve worker: a workspace with nothing being analysed. Any worker: a workspace holding fewer than the
    // ordinary workers' count, so one workspace never holds the reserve too (it stays for the others).
    // A reserve worker also leaves a workspace that is pressing (more of its jobs waiting, or uploads refused just now):
    // it is there for the others, not for the flood.
    const wsKey = this.waiting.next((k) =>
      forReserve ? !running.has(k) && !this.pressing(k, 1) : (running.get(k) ?? 0) < this.size,
    );
    if (wsKey === undefined) return undefined;
    const byWs = this.waiting.get(wsKey)!;
    const vKey = byWs.next()!;
    const q = byWs.get(vKey)!;
    const job = q.shift()!;
    if (q.length === 0) byWs.delete(vKey);
    if (byWs.size === 0) this.waiting.delete(wsKey);
    this.queued--;
    return job;
  }

  /** Resolves once every worker has loaded its models. */
  async ready() {
    await Promise.all(this.slots.map((s) => s.ready));
  }

  /** For /readyz and the benchmarks: workers loaded (reserve ones included), working, and jobs waiting. */
  health() {
    return {
      size: this.slots.length,
      ready: this.slots.filter((s) => s.isReady).length,
      busy: this.slots.filter((s) => s.busy).length,
      queued: this.queued,
      reserve: this.reserve,
      /** Ordinary workers whose job is yielding to a reserve worker's, and the time jobs have slept doing so. */
      yielding: this.slots.filter((s) => s.yieldingTo).length,
      yielded_ms: this.yieldedMs,
    };
  }

  /**
   * A reserve worker starts another workspace's job while the ordinary workers are all busy: one of them (one of the
   * workspace holding the most workers) yields to it at its job's next step, so the machine still runs no more
   * analyses than the ordinary workers' count and the reserve's job has a core to itself instead of sharing it with
   * the flood's (an analysis cannot be interrupted, but it can wait between steps). It resumes when that job ends.
   */
  private yieldTo(reserve: Slot) {
    const running = this.slots.filter((s) => s.busy && s !== reserve && !s.yieldingTo);
    if (running.length < this.size) return;
    const held = (ws: string) => this.slots.filter((s) => s.busy?.owner.workspace === ws).length;
    // Only a workspace that is pressing yields: one upload at a time of a quiet workspace is never paused.
    const victim = running
      .filter(
        (s) =>
          !s.reserve &&
          s.busy!.owner.workspace !== reserve.busy!.owner.workspace &&
          this.pressing(s.busy!.owner.workspace, 0),
      )
      .sort((x, y) => held(y.busy!.owner.workspace) - held(x.busy!.owner.workspace))[0];
    if (!victim) return;
    victim.yieldingTo = reserve;
    Atomics.store(victim.pause, 0, 1);
  }

  /**
   * A workspace is pressing when more than `beyond` of its jobs wait, or an upload of it was refused for a full queue
   * in the last few seconds (lib/domain/media/pressure.ts): it sends more than it is given. The reserve worker does
   * not take its jobs, and its running job is the one that yields.
   */
  private pressing(workspace: string, beyond: number): boolean {
    return this.waitingOf(workspace) > beyond || isPressing(workspace);
  }

  /** The jobs of a workspace waiting (not being analysed), over all its verifications. */
  private waitingOf(workspace: string): number {
    const ws = this.waiting.get(workspace);
    return ws ? [...ws.map.values()].reduce((n, q) => n + q.length, 0) : 0;
  }

  private resumeYieldingTo(reserve: Slot | null) {
    for (const s of this.slots) if (s.yieldingTo && (!reserve || s.yieldingTo === reserve)) this.resume(s);
  }

  private resume(s: Slot) {
    s.yieldingTo = null;
    Atomics.store(s.pause, 0, 0);
    Atomics.notify(s.pause, 0);
  }

  private pump() {
    for (const slot of this.slots) {
      if (slot.busy || !slot.isReady || this.queued === 0) continue;
      // At most `size` workers analyse at once (one core stays with the request loop); a reserve worker may go over
      // that to start another workspace's job at once, and while it does, a freed ordinary worker waits for it
      // instead of starting the flooding workspace's next job beside it (docs/performance.md "Fairness between
      // workspaces under a flood").
      if (!slot.reserve && this.slots.filter((s) => s.busy).length >= this.size) continue;
      const job = this.take(slot.reserve);
      if (!job) continue; // every waiting workspace already holds as many workers as it may

      slot.busy = job;
      slot.startedAt = performance.now();
      metrics().analysisQueueWait.observe((slot.startedAt - job.queuedAt) / 1000);
      if (slot.reserve) this.yieldTo(slot);
      slot.worker.postMessage({ id: job.id, bytes: job.bytes, kind: job.kind });
    }
  }

  /** Every worker failed to load its models: nothing waiting can ever run. */
  private failWaitingIfNoWorker() {
    // Only when every worker has failed to load is the waiting work lost (others may still be loading).
    if (!this.slots.every((s) => s.failed)) return;
    for (let job = this.take(); job; job = this.take())
      job.reject(new Error('no image-analysis worker could load its models'));
  }

  /** Waits for the jobs being analysed (up to `waitMs`), then stops the workers. */
  async close(waitMs = 0) {
    this.closed = true;
    this.resumeYieldingTo(null);
    const until = Date.now() + waitMs;
    while (this.slots.some((s) => s.busy) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }
}

const g = globalThis as unknown as { __ovPool?: AnalysisPool };
/** The process's pool, created on first use; stopped at shutdown once its running jobs are done. */
export function analysisPool(): AnalysisPool {
  if (!g.__ovPool) {
    const pool = new AnalysisPool(env().ANALYSIS_WORKERS, DEFAULT_QUEUE_LIMITS, env().ANALYSIS_RESERVE_WORKERS);
    g.__ovPool = pool;
    // The process's pool is the one /metrics reports (analysis_queue_depth, analysis_workers_busy), read at scrape time.
    metrics().sources.analysisPool = () => pool.health();
    onShutdown('workers', 'analysis-pool', () => pool.close(10_000));
  }
  return g.__ovPool;
}

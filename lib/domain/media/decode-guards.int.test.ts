/**
 * Decoder attacks and the analysis queue (issue #19): a file the decoder cannot read is the file's fault
 * (415), never a 500; a pixel bomb is refused from its header before any decode; the queue is bounded and
 * fair between workspaces and between verifications, refusing with 503 ANALYSIS_QUEUE_FULL and Retry-After.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { makeWorkspace, type TestWorkspace } from '@/test/helpers/factories';
import { consentedVerification, upload } from '@/test/helpers/upload';
import * as I from '@/test/helpers/images';
import { DomainError } from '../../core/errors';
import { analysisPool, AnalysisPool, DEFAULT_QUEUE_LIMITS } from './pool';
import { notePressure } from './pressure';

describe('decoder guards', () => {
  let w: TestWorkspace;
  let id: string;
  beforeAll(async () => {
    w = await makeWorkspace();
    id = await consentedVerification(w);
    await analysisPool().ready();
  }, 120_000);

  const selfie = (file: Uint8Array) => upload(w, w.testSecret, id, { type: 'selfie' }, file);

  it('truncated JPEG, PNG and WebP: 415 UNSUPPORTED_MEDIA_TYPE (a decode failure), not 500', async () => {
    const png = I.astronaut();
    const jpeg = await sharp(png).jpeg().toBuffer();
    const webp = await sharp(png).webp().toBuffer();
    for (const [name, bytes] of [
      ['jpeg', jpeg],
      ['png', png],
      ['webp', webp],
    ] as const) {
      const r = await selfie(bytes.subarray(0, Math.floor(bytes.length * 0.6)));
      expect([name, r.status, r.json.error.code]).toEqual([name, 415, 'UNSUPPORTED_MEDIA_TYPE']);
      expect(r.json.error.details.failed_checks).toEqual(['UNSUPPORTED_MEDIA_TYPE']);
    }
  });

  it('an 8000x8000 16-bit PNG (a 0.5 MB pixel bomb) is refused from its header: IMAGE_TOO_LARGE on the decode budget', async () => {
    const bomb = await sharp({
      create: { width: 8000, height: 8000, channels: 3, background: { r: 120, g: 130, b: 140 } },
    })
      .toColourspace('rgb16')
      .png({ compressionLevel: 9 })
      .toBuffer();
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const r = await selfie(bomb);
    expect([r.status, r.json.error.code]).toEqual([422, 'IMAGE_TOO_LARGE']);
    expect(r.json.error.details.checks.dimensions.passed).toBe(true);
    expect(r.json.error.details.checks.decoded_size).toEqual({
      value: 8000 * 8000 * 3 * 2,
      threshold: 8000 * 8000 * 3,
      passed: false,
    });
    // Refused before decoding: the pool never saw it.
    expect(analysisPool().health().busy).toBe(0);
  });
});

describe('analysis queue: bounded and fair', () => {
  let pool: AnalysisPool;
  let img: Buffer;
  beforeAll(async () => {
    pool = new AnalysisPool(1, DEFAULT_QUEUE_LIMITS);
    await pool.ready();
    img = await I.selfie1280();
  }, 120_000);
  afterAll(() => pool.close());

  const settle = (p: Promise<unknown>) =>
    p.then(
      () => 'ok',
      (e: unknown) => e,
    );

  it('one verification flooding: one running, two waiting, the rest 503 with Retry-After; another workspace goes next', async () => {
    const order: string[] = [];
    const flood = Array.from({ length: 8 }, (_, i) =>
      settle(pool.analyze(img, 'selfie', { workspace: 'A', verification: 'a1' }).then(() => order.push(`a${i}`))),
    );
    const other = settle(
      pool.analyze(img, 'selfie', { workspace: 'B', verification: 'b1' }).then(() => order.push('b')),
    );
    expect(pool.health().queued).toBe(3); // a1, a2 and b: a0 is being analysed
    const results = await Promise.all(flood);
    await other;
    const refused = results.filter((r): r is DomainError => r instanceof DomainError);
    expect(refused).toHaveLength(5);
    for (const e of refused) {
      expect(e.code).toBe('ANALYSIS_QUEUE_FULL');
      expect(e.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      expect(e.details).toMatchObject({ scope: 'verification' });
    }
    // The other workspace did not wait behind the flood: it went right after the job already running.
    expect(order).toEqual(['a0', 'b', 'a1', 'a2']);
  });

  it('one workspace with many links cannot fill the pool: its bound is 8 waiting; other workspaces still get in', async () => {
    const a = Array.from({ length: 12 }, (_, i) =>
      settle(pool.analyze(img, 'selfie', { workspace: 'A', verification: `link${i}` })),
    );
    const b = settle(pool.analyze(img, 'selfie', { workspace: 'B', verification: 'b' }));
    const h = pool.health();
    expect(h.queued).toBe(9); // 8 of A waiting (one more is running), and B
    const results = await Promise.all(a);
    expect(
      results.filter(
        (r) =>
          r instanceof DomainError &&
          r.code === 'ANALYSIS_QUEUE_FULL' &&
          (r.details as { scope: string }).scope === 'workspace',
      ),
    ).toHaveLength(3);
    expect(await b).toBe('ok');
  });

  it('in all, at most 16 wait: memory is bounded whoever sends', async () => {
    const all = Array.from({ length: 30 }, (_, i) =>
      settle(pool.analyze(img, 'selfie', { workspace: `ws${i % 10}`, verification: `v${i}` })),
    );
    expect(pool.health().queued).toBe(16);
    const results = await Promise.all(all);
    expect(results.filter((r) => r === 'ok')).toHaveLength(17);
    expect(
      results.filter((r) => r instanceof DomainError && (r.details as { scope: string }).scope === 'server'),
    ).toHaveLength(13);
  }, 120_000);
});

describe('analysis queue: a reserve worker for fairness', () => {
  /** A pool of one ordinary and one reserve worker, loaded, for one test. */
  const withReservePool = async (run: (pool: AnalysisPool, img: Buffer) => Promise<void>) => {
    const pool = new AnalysisPool(1, DEFAULT_QUEUE_LIMITS, 1);
    try {
      await pool.ready();
      await run(pool, await I.selfie1280());
    } finally {
      await pool.close();
    }
  };
  /** A job's outcome: 'ok', or its error's code. */
  const settle = (p: Promise<unknown>) =>
    p.then(
      () => 'ok',
      (e: unknown) => (e instanceof DomainError ? e.code : e),
    );

  it(
    'takes only a workspace with nothing being analysed: while one workspace floods, another starts at once',
    () =>
      withReservePool(async (pool, img) => {
        const a = [0, 1, 2].map((i) => settle(pool.analyze(img, 'selfie', { workspace: 'A', verification: `a${i}` })));
        // A's first job runs on the ordinary worker; the reserve worker leaves A's others waiting.
        expect(pool.health()).toMatchObject({ size: 2, reserve: 1, busy: 1, queued: 2 });
        const b = settle(pool.analyze(img, 'selfie', { workspace: 'B', verification: 'b' }));
        // B does not wait for A's running job: it starts on the reserve worker at once.
        expect(pool.health()).toMatchObject({ busy: 2, queued: 2 });
        const c = settle(pool.analyze(img, 'selfie', { workspace: 'C', verification: 'c' }));
        // A third workspace waits, first in line (it was served least recently), for whichever worker frees first.
        expect(pool.health()).toMatchObject({ busy: 2, queued: 3 });
        expect(await Promise.all([...a, b, c])).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
      }),
    120_000,
  );

  it(
    'a workspace holds at most the ordinary workers: one that got the reserve does not take the ordinary worker too',
    () =>
      withReservePool(async (pool, img) => {
        // B's job (a file that fails at decode, in milliseconds) holds the ordinary worker, so A's first goes to the reserve.
        const b1 = settle(
          pool.analyze(Buffer.from('not an image at all'), 'selfie', { workspace: 'B', verification: 'b1' }),
        );
        const a = [0, 1].map((i) => settle(pool.analyze(img, 'selfie', { workspace: 'A', verification: `a${i}` })));
        expect(pool.health()).toMatchObject({ busy: 2, queued: 1 });
        expect(await b1).toBe('UNSUPPORTED_MEDIA_TYPE');
        // The ordinary worker is free and A has one waiting, but A already holds a worker (the reserve): it stays free.
        expect(pool.health()).toMatchObject({ busy: 1, queued: 1 });
        // B's next upload waits only for the job the reserve is running (no more than the ordinary workers' count
        // analyse at once but for the reserve's own start), and then goes first: A was served more recently.
        const b2 = settle(pool.analyze(img, 'selfie', { workspace: 'B', verification: 'b2' }));
        expect(pool.health()).toMatchObject({ busy: 1, queued: 2 });
        expect(await Promise.all([...a, b2])).toEqual(['ok', 'ok', 'ok']);
      }),
    120_000,
  );

  it(
    "while the reserve runs another workspace's job, a freed ordinary worker waits for it instead of starting the flood's next job beside it",
    () =>
      withReservePool(async (pool, img) => {
        // A floods: its job holds the ordinary worker (a file that fails at decode, in milliseconds), its next waits.
        const a0 = settle(
          pool.analyze(Buffer.from('not an image at all'), 'selfie', { workspace: 'A', verification: 'a0' }),
        );
        // B's upload starts on the reserve at once; A's next is queued behind A's running job.
        const b = settle(pool.analyze(img, 'selfie', { workspace: 'B', verification: 'b' }));
        const a1 = settle(pool.analyze(img, 'selfie', { workspace: 'A', verification: 'a1' }));
        expect(pool.health()).toMatchObject({ busy: 2, queued: 1 });
        expect(await a0).toBe('UNSUPPORTED_MEDIA_TYPE');
        // The ordinary worker is free and A has one waiting, but B's analysis on the reserve keeps the machine at the
        // ordinary workers' count: A's next starts only when B's is done.
        expect(pool.health()).toMatchObject({ busy: 1, queued: 1 });
        expect(await b).toBe('ok');
        expect(pool.health()).toMatchObject({ busy: 1, queued: 0 });
        expect(await a1).toBe('ok');
      }),
    120_000,
  );

  it(
    "the flood's running job yields to the reserve's at its next step, so the other workspace's analysis has the core, and resumes after it",
    () =>
      withReservePool(async (pool, img) => {
        const order: string[] = [];
        const job = (ws: string, v: string) =>
          settle(pool.analyze(img, 'selfie', { workspace: ws, verification: v }).then((r) => (order.push(v), r)));
        // The flood: one job running on the ordinary worker, one more waiting (it is pressing). Then another workspace's
        // upload starts on the reserve worker, above the ordinary count.
        const a = [job('flood', 'a0'), job('flood', 'a1')];
        const b = job('quiet', 'b');
        expect(pool.health()).toMatchObject({ busy: 2, queued: 1, yielding: 1 });
        expect(await b).toBe('ok');
        // a0 started first and the two are the same work: without the yield, a0 ends first.
        expect(order).toEqual(['b']);
        expect(pool.health()).toMatchObject({ yielding: 0 });
        expect(await Promise.all(a)).toEqual(['ok', 'ok']);
        expect(order).toEqual(['b', 'a0', 'a1']);
        // The flood's worker slept at a step while b ran (the worker reports it; a worker that ignored the flag reports 0).
        const slept = pool.health().yielded_ms;
        expect(slept).toBeGreaterThan(100);
      }),
    120_000,
  );

  it(
    "a quiet workspace's job never yields, and the reserve worker leaves a pressing workspace's job waiting",
    () =>
      withReservePool(async (pool, img) => {
        // The quiet workspace's one upload holds the ordinary worker. An upload of the flood was just refused for a full
        // queue (it is pressing): its next does not take the reserve worker beside the quiet one's, nor pause it.
        const q = settle(pool.analyze(img, 'selfie', { workspace: 'quiet2', verification: 'q' }));
        notePressure('flood2');
        const f = settle(pool.analyze(img, 'selfie', { workspace: 'flood2', verification: 'f' }));
        expect(pool.health()).toMatchObject({ busy: 1, queued: 1, yielding: 0 });
        expect(await q).toBe('ok');
        expect(pool.health()).toMatchObject({ busy: 1, queued: 0 });
        expect(await f).toBe('ok');
        // One workspace alone never yields either: the reserve stays idle and nothing pauses.
        const solo = [0, 1].map((i) =>
          settle(pool.analyze(img, 'selfie', { workspace: 'solo', verification: `s${i}` })),
        );
        expect(pool.health()).toMatchObject({ busy: 1, yielding: 0 });
        expect(await Promise.all(solo)).toEqual(['ok', 'ok']);
        expect(pool.health().yielded_ms).toBe(0);
      }),
    120_000,
  );
});

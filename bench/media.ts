/**
 * npm run bench:media [-- --db embedded|pg15] [--uploads N] [--seconds N]
 *
 * For a 1280x720 JPEG selfie against the production build: validation latency p50/p95 of single
 * uploads (one at a time), uploads per second with 4 concurrent clients, and, measured while those
 * uploads run, the p50/p99 latency of a signed GET (the event loop must stay free: target p99 < 100 ms).
 * Then 20 concurrent uploaders: the server's peak RSS (the analysis queue is bounded: a full queue answers
 * 503 ANALYSIS_QUEUE_FULL with Retry-After, which the uploaders honour) and how many uploads got through.
 */
import os from 'node:os';
import { signJsonRequest, signMultipartRequest } from '../lib/domain/auth/sign';
import { selfie1280 } from '../test/helpers/images';
import {
  benchFlags,
  ensureBuild,
  percentile,
  prepare,
  rssMb,
  startDatabase,
  startServer,
  stopAll,
  runBench,
} from './harness';

const flags = benchFlags({ db: 'embedded', uploads: '30', seconds: '20' });
const DB = flags.db;
const UPLOADS = Number(flags.uploads);
const SECONDS = Number(flags.seconds);

async function main() {
  ensureBuild();
  const db = await startDatabase(DB);
  const { apiKey, secret, consent, env } = await prepare(db.url);
  const server = await startServer(env);
  const base = server.base;
  const photo = await selfie1280();

  const json = async (method: string, path: string, body = '') => {
    const r = await fetch(base + path, {
      method,
      body: body || undefined,
      headers: {
        'content-type': 'application/json',
        'x-api-key': apiKey,
        'x-hmac-signature': signJsonRequest(secret, method, path, body),
      },
    });
    return { status: r.status, body: await r.json() };
  };
  const newVerification = async () => {
    const { body } = await json('POST', '/v1/verifications', '{}');
    const id = body.data.id as string;
    await json(
      'POST',
      `/v1/verifications/${id}/consent`,
      JSON.stringify({ consent_version_id: consent.id, text_sha256: consent.sha }),
    );
    return id;
  };
  const upload = async (id: string) => {
    const path = `/v1/verifications/${id}/media`;
    const form = new FormData();
    form.append('type', 'selfie');
    form.append('file', new Blob([photo as BlobPart], { type: 'image/jpeg' }), 'selfie.jpg');
    const t = performance.now();
    const r = await fetch(base + path, {
      method: 'POST',
      body: form,
      headers: {
        'x-api-key': apiKey,
        'x-hmac-signature': signMultipartRequest(secret, 'POST', path, [['type', 'selfie']], [photo]),
      },
    });
    await r.arrayBuffer();
    if (r.status !== 201) throw new Error(`upload answered ${r.status}`);
    return performance.now() - t;
  };

  const id = await newVerification();
  for (let i = 0; i < 4; i++) await upload(id); // warm-up: workers load their models
  const single: number[] = [];
  for (let i = 0; i < UPLOADS; i++) single.push(await upload(id));

  // 4 concurrent uploaders for SECONDS, and a signed GET loop alongside.
  const ids = await Promise.all(Array.from({ length: 4 }, newVerification));
  const until = Date.now() + SECONDS * 1000;
  let done = 0;
  const gets: number[] = [];
  const getPath = `/v1/verifications/${id}`;
  const uploaders = ids.map(async (vid) => {
    while (Date.now() < until) {
      await upload(vid);
      done++;
    }
  });
  const getter = (async () => {
    while (Date.now() < until) {
      const t = performance.now();
      const r = await fetch(base + getPath, {
        headers: { 'x-api-key': apiKey, 'x-hmac-signature': signJsonRequest(secret, 'GET', getPath) },
      });
      await r.arrayBuffer();
      gets.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  const t0 = Date.now();
  await Promise.all([...uploaders, getter]);
  const elapsed = (Date.now() - t0) / 1000;

  // 20 concurrent uploaders, each with its own verification, for SECONDS: peak RSS of the server.
  const ids20 = await Promise.all(Array.from({ length: 20 }, newVerification));
  const rssBefore = rssMb(server.proc.pid!);
  let peak = rssBefore;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(server.proc.pid!))), 100);
  const until20 = Date.now() + SECONDS * 1000;
  let accepted = 0;
  let full = 0;
  let other = 0;
  const uploaders20 = ids20.map(async (vid) => {
    const path = `/v1/verifications/${vid}/media`;
    while (Date.now() < until20) {
      const form = new FormData();
      form.append('type', 'selfie');
      form.append('file', new Blob([photo as BlobPart], { type: 'image/jpeg' }), 'selfie.jpg');
      const r = await fetch(base + path, {
        method: 'POST',
        body: form,
        headers: {
          'x-api-key': apiKey,
          'x-hmac-signature': signMultipartRequest(secret, 'POST', path, [['type', 'selfie']], [photo]),
        },
      });
      const body = await r.json();
      if (r.status === 201) accepted++;
      else if (r.status === 503 && body.error?.code === 'ANALYSIS_QUEUE_FULL') {
        full++;
        await new Promise((res) => setTimeout(res, Number(r.headers.get('retry-after') ?? 1) * 1000));
      } else other++;
    }
  });
  const t20 = Date.now();
  await Promise.all(uploaders20);
  clearInterval(sampler);
  const elapsed20 = (Date.now() - t20) / 1000;

  const f = (x: number) => x.toFixed(0).padStart(6);
  console.log(
    `\nbench:media  database=${DB}  1280x720 JPEG selfie (${(photo.byteLength / 1024).toFixed(0)} KiB)  ${os.availableParallelism()} cores`,
  );
  console.log(
    `single upload, validation included (n=${single.length}):  p50 ${f(percentile(single, 50))} ms   p95 ${f(percentile(single, 95))} ms   (target p50 < 400 ms)`,
  );
  console.log(`4 concurrent uploaders, ${elapsed.toFixed(0)} s:              ${(done / elapsed).toFixed(2)} uploads/s`);
  console.log(
    `signed GET during those uploads (n=${gets.length}):        p50 ${f(percentile(gets, 50))} ms   p99 ${f(percentile(gets, 99))} ms   (target p99 < 100 ms)`,
  );
  console.log(
    `20 concurrent uploaders, ${elapsed20.toFixed(0)} s:             ${(accepted / elapsed20).toFixed(2)} uploads/s; ${full} answered 503 ANALYSIS_QUEUE_FULL (retried after Retry-After), ${other} other errors`,
  );
  console.log(`server RSS with 20 uploaders:                peak ${f(peak)} MB   (${f(rssBefore)} MB before)`);
  stopAll();
  await db.stop();
}

runBench(main);

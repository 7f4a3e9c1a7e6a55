/**
 * npm run bench:fairness [-- --db embedded|pg15] [--uploads N] [--flooders N] [--reserve 0,1]
 *
 * Fairness between workspaces under a flood, against the production build: workspace B uploads a 1280x720 JPEG
 * selfie through /v1, one at a time, first with the server idle, then while one capture link of workspace A
 * floods uploads (`--flooders` concurrent loops on that one link, each sending again as soon as it is answered,
 * 503 and 429 included). Prints B's upload latency (p50 / p95) idle and flooded, and their ratio (target: at
 * most 1.5), with what the flood got (accepted, 503 ANALYSIS_QUEUE_FULL, 429 RATE_LIMIT): once per value of
 * `--reserve` (ANALYSIS_RESERVE_WORKERS, a server each; by default without and with the reserve worker).
 */
import os from 'node:os';
import { connect } from '../lib/db/client';
import { signJsonRequest, signMultipartRequest } from '../lib/domain/auth/sign';
import { selfie1280 } from '../test/helpers/images';
import { benchFlags, ensureBuild, percentile, prepare, startDatabase, startServer, stopAll, runBench } from './harness';

const flags = benchFlags({ db: 'embedded', uploads: '20', flooders: '6', reserve: '0,1' });
const DB = flags.db;
const UPLOADS = Number(flags.uploads);
const FLOODERS = Number(flags.flooders);
const RESERVES = flags.reserve.split(',').map(Number);

async function main() {
  ensureBuild();
  const rows: string[] = [];
  for (const reserve of RESERVES) rows.push(await measure(reserve));
  console.log(
    `\nbench:fairness  database=${DB}  1280x720 JPEG selfie  ${os.availableParallelism()} cores  load ${os.loadavg()[0].toFixed(1)}  workspace B one upload at a time (n=${UPLOADS}), A's capture link flooded by ${FLOODERS} loops`,
  );
  console.log(rows.join('\n'));
}

async function measure(reserve: number): Promise<string> {
  const db = await startDatabase(DB);
  const a = await prepare(db.url);
  // Workspace B, in the same database, under the same encryption key (prepare() set it in this process).
  const h = connect(db.url, { max: 1 });
  const { createWorkspace } = await import('../lib/domain/workspaces');
  const created = await createWorkspace(h.db, { name: 'bench other', settings: { rate_limit_per_minute: 1_000_000 } });
  await h.close();
  const b = { apiKey: created.workspace.apiKey, secret: created.secretKeys.find((k) => k.mode === 'test')!.secret };
  const server = await startServer({ ...a.env, ANALYSIS_RESERVE_WORKERS: String(reserve) });
  const base = server.base;
  const photo = await selfie1280();

  const json = async (w: { apiKey: string; secret: string }, method: string, path: string, body = '') => {
    const r = await fetch(base + path, {
      method,
      body: body || undefined,
      headers: {
        'content-type': 'application/json',
        'x-api-key': w.apiKey,
        'x-hmac-signature': signJsonRequest(w.secret, method, path, body),
      },
    });
    return { status: r.status, body: await r.json() };
  };
  const consentBody = JSON.stringify({ consent_version_id: a.consent.id, text_sha256: a.consent.sha });
  const form = () => {
    const f = new FormData();
    f.append('type', 'selfie');
    f.append('file', new Blob([photo as BlobPart], { type: 'image/jpeg' }), 'selfie.jpg');
    return f;
  };

  // B: one consented verification, uploads through /v1, timed one at a time.
  const bId = (await json(b, 'POST', '/v1/verifications', '{}')).body.data.id as string;
  await json(b, 'POST', `/v1/verifications/${bId}/consent`, consentBody);
  const bUpload = async () => {
    const path = `/v1/verifications/${bId}/media`;
    const t = performance.now();
    const r = await fetch(base + path, {
      method: 'POST',
      body: form(),
      headers: {
        'x-api-key': b.apiKey,
        'x-hmac-signature': signMultipartRequest(b.secret, 'POST', path, [['type', 'selfie']], [photo]),
      },
    });
    await r.arrayBuffer();
    if (r.status !== 201) throw new Error(`B's upload answered ${r.status}`);
    return performance.now() - t;
  };

  // A: one capture link, consented through the page's own endpoint.
  const aUrl = (await json({ apiKey: a.apiKey, secret: a.secret }, 'POST', '/v1/verifications', '{}')).body.data
    .url as string;
  const token = new URL(aUrl).pathname.split('/').pop()!;
  await fetch(`${base}/api/capture/${token}/consent`, {
    method: 'POST',
    body: consentBody,
    headers: { 'content-type': 'application/json' },
  });

  for (let i = 0; i < 4; i++) await bUpload(); // warm-up: workers load their models
  const idle: number[] = [];
  for (let i = 0; i < UPLOADS; i++) idle.push(await bUpload());

  let flooding = true;
  const got = { accepted: 0, queueFull: 0, rateLimited: 0, other: 0 };
  const flooders = Array.from({ length: FLOODERS }, async () => {
    while (flooding) {
      const r = await fetch(`${base}/api/capture/${token}/media`, { method: 'POST', body: form() });
      await r.arrayBuffer();
      if (r.status === 201) got.accepted++;
      else if (r.status === 503) got.queueFull++;
      else if (r.status === 429) got.rateLimited++;
      else got.other++;
      // A refusal comes back in milliseconds: without a pause a refused loop would only measure our own client.
      if (r.status !== 201) await new Promise((res) => setTimeout(res, 20));
    }
  });
  await new Promise((r) => setTimeout(r, 2000)); // the flood reaches its steady state
  const flooded: number[] = [];
  const t0 = Date.now();
  for (let i = 0; i < UPLOADS; i++) flooded.push(await bUpload());
  const seconds = (Date.now() - t0) / 1000;
  flooding = false;
  await Promise.all(flooders);

  const f = (x: number) => x.toFixed(0).padStart(5);
  const ratio = (p: number) => (percentile(flooded, p) / percentile(idle, p)).toFixed(2);
  stopAll();
  await db.stop();
  return (
    `reserve workers ${reserve}:  B idle p50 ${f(percentile(idle, 50))} ms, p95 ${f(percentile(idle, 95))} ms;  flooded p50 ${f(percentile(flooded, 50))} ms, p95 ${f(percentile(flooded, 95))} ms;  ` +
    `flooded ÷ idle p50 ${ratio(50)}, p95 ${ratio(95)} (target ≤ 1.5);  the flood over ${seconds.toFixed(0)} s: ${got.accepted} accepted, ${got.queueFull} × 503, ${got.rateLimited} × 429, ${got.other} other`
  );
}

runBench(main);

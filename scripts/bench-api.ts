/**
 * npm run bench:api [-- --db embedded|pg15] [--seconds N] [--connections N] [--metadata true]
 *
 * Requests/s and p50/p99 latency of a signed GET /v1/verifications/{id} and a signed create, against
 * the production build (rate limit raised), next to the same operations on a minimal node:http +
 * postgres.js server (scripts/bench/baseline-server.ts) on the same database, and the ratio.
 * Every process is separate: database, service, baseline, and this load generator.
 */
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { signJsonRequest } from '../lib/auth/sign';
import { arg, ensureBuild, prepare, root, startChild, startDatabase, startService, stopAll, freePort, runBench } from './bench/harness';

const DB = arg('db', 'embedded');
const SECONDS = Number(arg('seconds', '10'));
const CONNECTIONS = Number(arg('connections', '50'));
/**
 * With external_metadata in the create (and so on the verification read): it is sealed under a data key made at
 * the create, and opened at every read (docs/privacy.md). The baseline server stores and returns it as is.
 */
const METADATA = arg('metadata', 'false') === 'true';

type Result = { rps: number; p50: number; p99: number; non2xx: number; errors: number };

async function load(url: string, method: 'GET' | 'POST', pathName: string, apiKey: string, secret: string, body = ''): Promise<Result> {
  const headers = { 'x-api-key': apiKey, 'x-hmac-signature': signJsonRequest(secret, method, pathName, body), 'content-type': 'application/json' };
  const r = await autocannon({ url: url + pathName, method, headers, body: body || undefined, connections: CONNECTIONS, duration: SECONDS });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors };
}

async function main() {
  ensureBuild();
  const db = await startDatabase(DB);
  const { apiKey, secret, env } = await prepare(db.url);
  const service = await startService(env);
  const basePort = await freePort();
  await startChild(path.join(root, 'node_modules/.bin/tsx'), ['scripts/bench/baseline-server.ts'], { ...env, PORT: String(basePort) }, /ready/);

  const targets = { service, baseline: `http://127.0.0.1:${basePort}` };
  // One verification to read; created through the service so both servers read the same row.
  const createBody = JSON.stringify({ external_id: 'bench-user', ...(METADATA ? { external_metadata: { plan: 'pro', email: 'bench@example.com', account: 12345 } } : {}) });
  const created = await fetch(targets.service + '/v1/verifications', {
    method: 'POST',
    body: createBody,
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey, 'x-hmac-signature': signJsonRequest(secret, 'POST', '/v1/verifications', createBody) },
  }).then((r) => r.json());
  const getPath = `/v1/verifications/${created.data.id}`;

  const rows: Record<string, Result> = {};
  for (const [name, url] of Object.entries(targets)) {
    await load(url, 'GET', getPath, apiKey, secret); // warm-up (JIT, pools, caches): discarded
    rows[`GET ${name}`] = await load(url, 'GET', getPath, apiKey, secret);
    rows[`create ${name}`] = await load(url, 'POST', '/v1/verifications', apiKey, secret, createBody);
  }

  console.log(`\nbench:api  database=${DB}  connections=${CONNECTIONS}  ${SECONDS}s per run  metadata=${METADATA}  (${os.cpus().length} cores)`);
  console.log('operation          server     req/s    p50 ms   p99 ms   non-2xx  errors');
  for (const op of ['GET', 'create']) {
    for (const name of ['service', 'baseline']) {
      const r = rows[`${op} ${name}`];
      console.log(`${op.padEnd(18)} ${name.padEnd(9)} ${r.rps.toFixed(0).padStart(7)} ${String(r.p50).padStart(8)} ${String(r.p99).padStart(8)} ${String(r.non2xx).padStart(9)} ${String(r.errors).padStart(7)}`);
    }
    const ratio = rows[`${op} service`].rps / rows[`${op} baseline`].rps;
    console.log(`${op.padEnd(18)} ratio service/baseline = ${ratio.toFixed(2)}  (target ≥ 0.50; p99 target < 50 ms)`);
  }
  stopAll();
  await db.stop();
}

runBench(main);

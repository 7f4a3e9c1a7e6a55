/**
 * npm run bench:api [-- --db embedded|pg15] [--seconds N] [--connections N]
 *
 * Requests/s and p50/p99 latency of a signed GET /v1/verifications/{id} and a signed create, against
 * the production build (rate limit raised), next to the same operations on a minimal node:http +
 * postgres.js server (scripts/bench/baseline-server.ts) on the same database, and the ratio.
 * Every process is separate: database, service, baseline, and this load generator.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import { applyMigrations } from '../db/migrate';
import { connect } from '../db/client';
import { signJsonRequest } from '../lib/auth/sign';
import { startPg15 } from '../lib/testing/pg15';

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const DB = arg('db', 'embedded');
const SECONDS = Number(arg('seconds', '10'));
const CONNECTIONS = Number(arg('connections', '50'));
const root = path.resolve(import.meta.dirname, '..');
const children: ChildProcess[] = [];

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

function startChild(cmd: string, args: string[], env: NodeJS.ProcessEnv, readyOn: RegExp): Promise<{ proc: ChildProcess; line: string }> {
  const proc = spawn(cmd, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(proc);
  return new Promise((resolve, reject) => {
    let buf = '';
    proc.stdout!.on('data', (d) => {
      buf += d;
      const m = buf.split('\n').find((l) => readyOn.test(l));
      if (m) resolve({ proc, line: m });
    });
    proc.once('exit', (c) => reject(new Error(`${cmd} exited ${c}: ${buf}`)));
  });
}

type Result = { rps: number; p50: number; p99: number; non2xx: number; errors: number };

async function load(url: string, method: 'GET' | 'POST', pathName: string, apiKey: string, secret: string, body = ''): Promise<Result> {
  const headers = { 'x-api-key': apiKey, 'x-hmac-signature': signJsonRequest(secret, method, pathName, body), 'content-type': 'application/json' };
  const r = await autocannon({ url: url + pathName, method, headers, body: body || undefined, connections: CONNECTIONS, duration: SECONDS });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors };
}

async function main() {
  if (!fs.existsSync(path.join(root, '.next/BUILD_ID'))) {
    console.log('building (next build)…');
    execFileSync('npx', ['next', 'build'], { cwd: root, stdio: 'ignore' });
  }
  let dbUrl: string;
  let stopDb: () => Promise<void>;
  if (DB === 'pg15') {
    const pg = await startPg15();
    dbUrl = pg.url;
    stopDb = pg.stop;
  } else {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ov-bench-'));
    const { proc, line } = await startChild(path.join(root, 'node_modules/.bin/tsx'), ['scripts/bench/embedded-db.ts', path.join(dir, 'db')], process.env, /"url"/);
    dbUrl = JSON.parse(line).url;
    stopDb = async () => {
      proc.kill('SIGTERM');
      fs.rmSync(dir, { recursive: true, force: true });
    };
  }
  const encryptionKey = randomBytes(32).toString('base64');
  process.env.ENCRYPTION_KEY = encryptionKey;
  process.env.BASE_URL = 'http://bench.local';
  await applyMigrations(dbUrl);
  const h = connect(dbUrl, { max: 2 });
  const { createWorkspace } = await import('../lib/workspaces');
  const ws = await createWorkspace(h.db, { name: 'bench', settings: { rate_limit_per_minute: 1_000_000 } });
  await h.close();
  const apiKey = ws.workspace.apiKey;
  const secret = ws.secretKeys.find((k) => k.mode === 'test')!.secret;

  const env: NodeJS.ProcessEnv = { DATABASE_POOL_SIZE: arg('pool', '10'), ...process.env, DATABASE_URL: dbUrl, ENCRYPTION_KEY: encryptionKey, BASE_URL: 'http://bench.local', NODE_ENV: 'production', LOG_LEVEL: 'warn', NEXT_TELEMETRY_DISABLED: '1' };
  const svcPort = await freePort();
  const basePort = await freePort();
  await startChild(process.execPath, [path.join(root, 'node_modules/next/dist/bin/next'), 'start', '-p', String(svcPort)], { ...env, PORT: String(svcPort) }, /Ready/);
  await startChild(path.join(root, 'node_modules/.bin/tsx'), ['scripts/bench/baseline-server.ts'], { ...env, PORT: String(basePort) }, /ready/);

  const targets = { service: `http://127.0.0.1:${svcPort}`, baseline: `http://127.0.0.1:${basePort}` };
  // One verification to read; created through the service so both servers read the same row.
  const createBody = JSON.stringify({ external_id: 'bench-user' });
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

  console.log(`\nbench:api  database=${DB}  connections=${CONNECTIONS}  ${SECONDS}s per run  (${os.cpus().length} cores)`);
  console.log('operation          server     req/s    p50 ms   p99 ms   non-2xx  errors');
  for (const op of ['GET', 'create']) {
    for (const name of ['service', 'baseline']) {
      const r = rows[`${op} ${name}`];
      console.log(`${op.padEnd(18)} ${name.padEnd(9)} ${r.rps.toFixed(0).padStart(7)} ${String(r.p50).padStart(8)} ${String(r.p99).padStart(8)} ${String(r.non2xx).padStart(9)} ${String(r.errors).padStart(7)}`);
    }
    const ratio = rows[`${op} service`].rps / rows[`${op} baseline`].rps;
    console.log(`${op.padEnd(18)} ratio service/baseline = ${ratio.toFixed(2)}  (target ≥ 0.50; p99 target < 50 ms)`);
  }
  for (const c of children) c.kill('SIGTERM');
  await stopDb();
}

main()
  .catch((e) => {
    console.error(e);
    process.exitCode = 1;
  })
  .finally(() => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
    setTimeout(() => process.exit(), 1000);
  });

/**
 * npm run bench:api [-- --db embedded|pg15] [--seconds N] [--connections N] [--runs N] [--metadata true] [--growth N]
 *
 * Requests/s and p50/p99 latency of a signed GET /v1/verifications/{id} and a signed create, against
 * the production build (rate limit raised), next to the same operations on a bare node:http server doing
 * exactly the service's work per request (bench/baseline-server.ts: the same authentication, SQL,
 * caching and serialisation) on the same database, and the ratio: what the framework costs. Each side runs
 * `--runs` times (3), interleaved, and the medians are reported (docs/performance.md "API throughput").
 * Every process is separate: database, service, baseline, and this load generator. `API_FAST_PATH=0` in the
 * environment measures the service with /v1 served by Next.js (docs/configuration.md).
 *
 * Then the growth phase (issue 44; `--growth 0` skips it): in a workspace of its own, a signed GET of one verification
 * (one run), `--growth` (30,000) signed creates in that workspace, and the same GET again: the requests/s after
 * against before (target ≥ 0.8) and the p99 after (target < 100 ms), with what the database's statistics then say
 * of `verifications` (docs/performance.md "A workspace that grows"). The embedded engine's process runs its
 * maintenance as the launcher does (bench/embedded-db.ts) and prints its lines.
 */
import fs from 'node:fs';
import os from 'node:os';
import autocannon from 'autocannon';
import { signJsonRequest } from '../lib/domain/auth/sign';
import { sql } from 'drizzle-orm';
import { connect } from '../lib/db/client';
import {
  benchFlags,
  ensureBuild,
  prepare,
  startChild,
  startDatabase,
  startServer,
  stopAll,
  freePort,
  runBench,
} from './harness';

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const flags = benchFlags({
  db: 'embedded',
  seconds: '10',
  connections: '50',
  metadata: 'false',
  runs: '3',
  growth: '30000',
});
const DB = flags.db;
const SECONDS = Number(flags.seconds);
const CONNECTIONS = Number(flags.connections);
/**
 * With external_metadata in the create (and so on the verification read): it is sealed under a data key made at
 * the create, and opened at every read (docs/privacy.md). The baseline does the same (it calls the service's own create and read).
 */
const METADATA = flags.metadata === 'true';
const RUNS = Number(flags.runs);
const GROWTH = Number(flags.growth);

/**
 * CPU time of a process (all its threads, user and system) in ms, from /proc: the work each request costs, which a
 * shared machine disturbs far less than the requests/s (another process taking a core lowers the throughput of
 * both sides, not the CPU time each request needs).
 */
function cpuMs(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // utime + stime, in clock ticks of 10 ms
}

type Result = { rps: number; p50: number; p99: number; non2xx: number; errors: number; cpuPerReq: number };

async function load(
  target: { url: string; pid: number },
  method: 'GET' | 'POST',
  pathName: string,
  apiKey: string,
  secret: string,
  body = '',
): Promise<Result> {
  const headers = {
    'x-api-key': apiKey,
    'x-hmac-signature': signJsonRequest(secret, method, pathName, body),
    'content-type': 'application/json',
  };
  const cpu0 = cpuMs(target.pid);
  const r = await autocannon({
    url: target.url + pathName,
    method,
    headers,
    body: body || undefined,
    connections: CONNECTIONS,
    duration: SECONDS,
  });
  const cpuPerReq = (cpuMs(target.pid) - cpu0) / Math.max(1, r.requests.total);
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors,
    cpuPerReq,
  };
}

async function main() {
  ensureBuild();
  const db = await startDatabase(DB);
  const { apiKey, secret, env } = await prepare(db.url);
  const service = await startServer(env);
  const basePort = await freePort();
  // node itself (not the tsx launcher, a parent process) so that its CPU time is the server's.
  const baseline = await startChild(
    process.execPath,
    ['--import', 'tsx', 'bench/baseline-server.ts'],
    { ...env, PORT: String(basePort) },
    /ready/,
  );

  const targets = {
    service: { url: service.base, pid: service.proc.pid! },
    baseline: { url: `http://127.0.0.1:${basePort}`, pid: baseline.proc.pid! },
  };
  // One verification to read; created through the service so both servers read the same row.
  const createBody = JSON.stringify({
    external_id: 'bench-user',
    ...(METADATA ? { external_metadata: { plan: 'pro', email: 'bench@example.com', account: 12345 } } : {}),
  });
  const created = await fetch(targets.service.url + '/v1/verifications', {
    method: 'POST',
    body: createBody,
    headers: {
      'content-type': 'application/json',
      'x-api-key': apiKey,
      'x-hmac-signature': signJsonRequest(secret, 'POST', '/v1/verifications', createBody),
    },
  }).then((r) => r.json());
  const getPath = `/v1/verifications/${created.data.id}`;

  const load1 = os.loadavg()[0];
  const runs: Record<string, Result[]> = {};
  for (const t of Object.values(targets)) await load(t, 'GET', getPath, apiKey, secret); // warm-up (JIT, pools, caches): discarded
  for (let i = 0; i < RUNS; i++) {
    // Interleaved, so a change in the machine's load falls on both sides alike.
    for (const [name, t] of Object.entries(targets)) {
      (runs[`GET ${name}`] ??= []).push(await load(t, 'GET', getPath, apiKey, secret));
      (runs[`create ${name}`] ??= []).push(await load(t, 'POST', '/v1/verifications', apiKey, secret, createBody));
    }
  }
  const rows: Record<string, Result> = Object.fromEntries(
    Object.entries(runs).map(([k, rs]) => [
      k,
      {
        rps: median(rs.map((r) => r.rps)),
        p50: median(rs.map((r) => r.p50)),
        p99: median(rs.map((r) => r.p99)),
        non2xx: rs.reduce((a, r) => a + r.non2xx, 0),
        errors: rs.reduce((a, r) => a + r.errors, 0),
        cpuPerReq: median(rs.map((r) => r.cpuPerReq)),
      },
    ]),
  );

  const fast = process.env.API_FAST_PATH === '0' ? 'off' : 'on';
  console.log(
    `\nbench:api  database=${DB}  connections=${CONNECTIONS}  ${SECONDS}s per run, median of ${RUNS}  fast path ${fast}  metadata=${METADATA}  (${os.cpus().length} cores, load ${load1.toFixed(1)} → ${os.loadavg()[0].toFixed(1)})`,
  );
  console.log('operation          server     req/s    p50 ms   p99 ms   non-2xx  errors  CPU ms/req   runs req/s');
  for (const op of ['GET', 'create']) {
    for (const name of ['service', 'baseline']) {
      const r = rows[`${op} ${name}`];
      const each = runs[`${op} ${name}`].map((x) => x.rps.toFixed(0)).join(' ');
      console.log(
        `${op.padEnd(18)} ${name.padEnd(9)} ${r.rps.toFixed(0).padStart(7)} ${String(r.p50).padStart(8)} ${String(r.p99).padStart(8)} ${String(r.non2xx).padStart(9)} ${String(r.errors).padStart(7)} ${r.cpuPerReq.toFixed(2).padStart(11)}   ${each}`,
      );
    }
    const ratio = rows[`${op} service`].rps / rows[`${op} baseline`].rps;
    const cpu = rows[`${op} service`].cpuPerReq / rows[`${op} baseline`].cpuPerReq;
    console.log(
      `${op.padEnd(18)} ratio service/baseline = ${ratio.toFixed(2)}  (target ≥ 0.6; service p99 target < 100 ms); CPU per request ${cpu.toFixed(2)}× the baseline's`,
    );
  }
  // Each run on its own: the medians hide which run met the targets.
  console.log('\nrun  operation  service req/s p50/p99 ms CPU ms/req  baseline req/s p50/p99 ms CPU ms/req  ratio');
  for (let i = 0; i < RUNS; i++) {
    for (const op of ['GET', 'create']) {
      const s = runs[`${op} service`][i];
      const b = runs[`${op} baseline`][i];
      const side = (r: Result) =>
        `${r.rps.toFixed(0).padStart(5)} ${`${r.p50}/${r.p99}`.padStart(9)} ${r.cpuPerReq.toFixed(2).padStart(10)}`;
      console.log(
        `${String(i + 1).padStart(3)}  ${op.padEnd(9)}  ${side(s)}        ${side(b)}        ${(s.rps / b.rps).toFixed(2)}`,
      );
    }
  }
  if (GROWTH > 0) await growthPhase(db.url, targets.service);
  stopAll();
  await db.stop();
}

/** The growth phase: a signed GET before and after `GROWTH` creates in one workspace. */
async function growthPhase(dbUrl: string, service: { url: string; pid: number }) {
  const { createWorkspace } = await import('../lib/domain/workspaces');
  const h = connect(dbUrl, { max: 1 });
  const ws = await createWorkspace(h.db, { name: 'bench growth', settings: { rate_limit_per_minute: 1_000_000 } });
  const apiKey = ws.workspace.apiKey;
  const secret = ws.secretKeys.find((k) => k.mode === 'test')!.secret;
  const body = JSON.stringify({ external_id: 'bench-growth' });
  const sign = (method: string, p: string, b = '') => ({
    'content-type': 'application/json',
    'x-api-key': apiKey,
    'x-hmac-signature': signJsonRequest(secret, method, p, b),
  });
  const created = await fetch(service.url + '/v1/verifications', {
    method: 'POST',
    body,
    headers: sign('POST', '/v1/verifications', body),
  }).then((r) => r.json());
  const getPath = `/v1/verifications/${created.data.id}`;
  const loadBefore = os.loadavg()[0];
  const before = await load(service, 'GET', getPath, apiKey, secret);
  const t0 = Date.now();
  const grown = await autocannon({
    url: service.url + '/v1/verifications',
    method: 'POST',
    headers: sign('POST', '/v1/verifications', body),
    body,
    connections: CONNECTIONS,
    amount: GROWTH,
  });
  const growthS = (Date.now() - t0) / 1000;
  const after = await load(service, 'GET', getPath, apiKey, secret);
  const [count] = await h.db.execute<{ n: number }>(
    sql`select count(*)::int as n from verifications where workspace_id = ${ws.workspace.id}`,
  );
  const [st] = await h.db.execute<{ reltuples: number; last_analyze: string | null; n_mod_since_analyze: number }>(
    sql`select c.reltuples, greatest(s.last_analyze, s.last_autoanalyze) as last_analyze, s.n_mod_since_analyze from pg_class c join pg_stat_user_tables s on s.relid = c.oid where c.relname = 'verifications'`,
  );
  await h.close();
  console.log(`
growth phase  database=${DB}  one workspace: a signed GET for ${SECONDS}s, ${GROWTH} signed creates (${CONNECTIONS} connections), the same GET again  (load ${loadBefore.toFixed(1)} → ${os.loadavg()[0].toFixed(1)})`);
  console.log(
    `creates: ${grown.requests.total} in ${growthS.toFixed(1)} s (${(grown.requests.total / growthS).toFixed(0)}/s, p99 ${grown.latency.p99} ms, non-2xx ${grown.non2xx}, errors ${grown.errors}); the workspace holds ${count.n} verifications`,
  );
  console.log(
    `verifications: planner's count ${Number(st.reltuples).toFixed(0)}, last analysed ${st.last_analyze ?? 'never'}, ${st.n_mod_since_analyze} rows changed since`,
  );
  console.log('GET              req/s    p50 ms   p99 ms   non-2xx  errors');
  for (const [name, r] of [
    ['before', before],
    ['after', after],
  ] as const) {
    console.log(
      `${name.padEnd(14)} ${r.rps.toFixed(0).padStart(7)} ${String(r.p50).padStart(8)} ${String(r.p99).padStart(8)} ${String(r.non2xx).padStart(9)} ${String(r.errors).padStart(7)}`,
    );
  }
  console.log(
    `after/before = ${(after.rps / before.rps).toFixed(2)} (target ≥ 0.8); p99 after ${after.p99} ms (target < 100 ms)`,
  );
}

runBench(main);

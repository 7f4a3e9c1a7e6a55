/**
 * npm run bench:retention [-- --due N] [--rate R] [--seconds S] [--rounds K] [--hnsw yes|no]
 *
 * The retention sweep on PostgreSQL 15 with N verifications due (default 100,000), each holding what a decided
 * one holds: a photo blob (8 KiB, encrypted bytes), its analysis with a 128-d embedding, its face in
 * face_embeddings (with the HNSW index), a data key, a webhook body with external_metadata; one in five a KYC
 * result with personal fields sealed under its data key (really encrypted, so the sweep lists them).
 *
 * 1. The sweep where it runs by default: in the production server's in-process runner (the retention-sweep job,
 *    once a minute, paced, 45 s per run), beside the API. In alternating windows — idle (nothing due), then
 *    sweeping (the workspace's retention shortened so all are due; the window starts with the runner's next run)
 *    — a signed GET /v1/verifications/{id} at a fixed rate (R/s, S seconds a window; ROUNDS rounds), and the
 *    sweep's rate in each sweeping window. A fixed request rate, not a saturating one: on 2 cores any extra work
 *    slows a saturated server in proportion; the question is what the sweep does to an API under ordinary load.
 *    Alternating windows let the machine's other load weigh on both alike.
 * 2. The server stopped, the rest of the backlog erased at full speed by a dedicated sweep: the sweep's own
 *    throughput with tens of thousands due.
 */
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import postgres from 'postgres';
import { signJsonRequest } from '../lib/domain/auth/sign';
import { benchFlags, ensureBuild, prepare, runBench, startService, stopAll } from './harness';
import { startPg15 } from '../test/helpers/pg15';
import { connect } from '../lib/db/client';
import { sweepRetention, SWEEP_PACE } from '../lib/domain/retention/sweep';
import { EMBEDDING_DIMENSIONS } from '../lib/db/schema';

// Its flags are read only when it is the benchmark run: bench/backup.ts imports seed() and has flags of its own.
const MAIN = process.argv[1] !== undefined && path.resolve(process.argv[1]) === path.resolve(import.meta.filename);
const flags = benchFlags(
  { due: '100000', rate: '100', seconds: '15', rounds: '5', hnsw: 'yes' },
  { argv: MAIN ? undefined : [] },
);
const DUE = Number(flags.due);
const RATE = Number(flags.rate);
const SECONDS = Number(flags.seconds);
const ROUNDS = Number(flags.rounds);
const HNSW = flags.hnsw !== 'no';
const BLOB_BYTES = 8 * 1024;

type Lat = { p50: number; p99: number; rps: number; non2xx: number; errors: number };

async function getLoad(url: string, path: string, apiKey: string, secret: string, seconds = SECONDS): Promise<Lat> {
  const headers = { 'x-api-key': apiKey, 'x-hmac-signature': signJsonRequest(secret, 'GET', path, '') };
  const r = await autocannon({
    url: url + path,
    method: 'GET',
    headers,
    connections: 10,
    overallRate: RATE,
    duration: seconds,
  });
  return { p50: r.latency.p50, p99: r.latency.p99, rps: r.requests.average, non2xx: r.non2xx, errors: r.errors };
}

export async function seed(sql: postgres.Sql, workspaceId: string, due = DUE, hnsw = HNSW) {
  const t0 = performance.now();
  const { aesGcmEncrypt } = await import('../lib/core/crypto/secretbox');
  const { wrapDataKey } = await import('../lib/domain/personal-data/data-keys');
  const decided = new Date(Date.now() - 40 * 86_400_000).toISOString();
  // A pool of distinct 128-d embeddings (random unit-ish vectors), assigned round-robin.
  const pool = Array.from({ length: 64 }, () =>
    Array.from({ length: EMBEDDING_DIMENSIONS }, () => Math.round((Math.random() * 2 - 1) * 0.177 * 1e6) / 1e6),
  );
  await sql`create temporary table emb_pool (n int, j jsonb, v text)`;
  for (const [n, e] of pool.entries())
    await sql`insert into emb_pool values (${n}, ${JSON.stringify(e)}::text::jsonb, ${`[${e.join(',')}]`})`;
  // Loaded without the HNSW index, which is rebuilt afterwards (faster than N inserts into it). Deleting rows does
  // not touch an index (VACUUM does, later), so --hnsw no only saves the build; the default keeps it as in production.
  await sql`drop index if exists face_embeddings_hnsw_idx`;
  const blob = randomBytes(BLOB_BYTES);
  const CHUNK = 10_000;
  for (let from = 0; from < due; from += CHUNK) {
    const n = Math.min(CHUNK, due - from);
    await sql.begin(async (tx) => {
      await tx`
        create temporary table batch on commit drop as
        select gen_random_uuid()::text as id, g as n from generate_series(${from + 1}::int, ${from + n}::int) g`;
      await tx`
        insert into verifications (id, workspace_id, mode, status, flow, check_method, external_id, external_metadata, capture_token_hash,
          attempts_used, result, created_at, started_at, submitted_at, completed_at, status_changed_at, updated_at)
        select id, ${workspaceId}, 'live', 'approved', 'age', 'estimation', 'user-' || n, jsonb_build_object('plan', 'pro', 'email', 'user' || n || '@example.com'),
          md5(id) || md5(n::text), 1,
          '{"decision":"pass","threshold":18,"estimated_age":31,"age_range":{"min":21,"max":41},"confidence":0.97}'::jsonb,
          ${decided}::timestamptz, ${decided}::timestamptz, ${decided}::timestamptz, ${decided}::timestamptz, ${decided}::timestamptz, ${decided}::timestamptz
        from batch`;
      await tx`
        insert into media (id, verification_id, type, content_type, byte_size, width, height, analysis, created_at)
        select 'med_' || id, id, 'selfie', 'image/jpeg', ${BLOB_BYTES}, 640, 480,
          jsonb_build_object('width', 640, 'height', 480, 'faces', jsonb_build_array(jsonb_build_object('age', 31, 'live', 0.9, 'embedding', p.j))), ${decided}::timestamptz
        from batch b join emb_pool p on p.n = b.n % 64`;
      await tx`insert into media_blobs (media_id, ciphertext, sealed_by) select 'med_' || id, ${blob}, 'data_key' from batch`;
      await tx`
        insert into face_embeddings (verification_id, workspace_id, mode, external_id, account, embedding, created_at)
        select id, ${workspaceId}, 'live', 'user-' || b.n, 'user-' || b.n, p.v::vector, ${decided}::timestamptz
        from batch b join emb_pool p on p.n = b.n % 64`;
      await tx`
        insert into webhook_events (id, workspace_id, verification_id, status, body, state, attempts, created_at)
        select 'evt_' || id, ${workspaceId}, id, 'approved',
          '{"verification_id":"' || id || '","status":"approved","external_id":"user-' || n || '","external_metadata":{"plan":"pro","email":"user' || n || '@example.com"},"reason":null,"timestamp":"' || ${decided} || '","duplicate_detected":false,"duplicate_count":0}',
          'delivered', 1, ${decided}::timestamptz
        from batch`;
      // Data keys, really wrapped; one verification in five with KYC personal fields sealed under its key.
      const ids = (await tx`select id, n from batch order by n`).map((r) => ({ id: r.id as string, n: Number(r.n) }));
      const keys = ids.map(({ id, n }) => {
        const dek = randomBytes(32);
        const w = wrapDataKey(id, dek);
        const sealed =
          n % 5 === 0
            ? aesGcmEncrypt(
                JSON.stringify({
                  person: { surname: 'BENCH', given_names: `USER ${n}`, date_of_birth: '1980-01-01', sex: 'F' },
                  document: { number_masked: '•••••1234', expiry_date: '2031-01-01', issuing_country: 'UTO' },
                }),
                `result:${id}`,
                dek,
              )
            : null;
        return { id, kek: w.kekId, wrapped: w.wrapped.toString('base64'), sealed: sealed?.toString('base64') ?? null };
      });
      await tx`
        insert into data_keys (verification_id, kek_id, wrapped)
        select x.id, x.kek, decode(x.w, 'base64') from json_to_recordset(${JSON.stringify(keys.map((k) => ({ id: k.id, kek: k.kek, w: k.wrapped })))}::text::json) as x(id text, kek text, w text)`;
      await tx`
        update verifications v set result_sealed = decode(x.s, 'base64'), flow = 'kyc', check_method = null,
          result = '{"decision":"pass","document":{"type":"id_card","source":"mrz"},"face_match":{"similarity":0.9,"threshold":0.66,"match":true}}'::jsonb
        from json_to_recordset(${JSON.stringify(keys.filter((k) => k.sealed).map((k) => ({ id: k.id, s: k.sealed })))}::text::json) as x(id text, s text)
        where v.id = x.id`;
    });
    process.stdout.write(`\r  seeded ${from + n} / ${due}`);
  }
  process.stdout.write('\n');
  if (hnsw) {
    const t = performance.now();
    await sql`set maintenance_work_mem = '1GB'`;
    await sql`create index face_embeddings_hnsw_idx on face_embeddings using hnsw (embedding vector_cosine_ops) with (m = 32, ef_construction = 128)`;
    console.log(`  HNSW index rebuilt in ${((performance.now() - t) / 1000).toFixed(0)} s`);
  }
  await sql`vacuum analyze`;
  console.log(`  seeded in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
}

const fmt = (l: Lat) =>
  `p50 ${String(l.p50).padStart(4)} ms  p99 ${String(l.p99).padStart(4)} ms  (${l.rps.toFixed(0)} req/s, non-2xx ${l.non2xx}, errors ${l.errors})`;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const loadavg = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

async function main() {
  ensureBuild();
  console.log(
    `bench:retention  ${DUE} due  GET at ${RATE} req/s, ${SECONDS} s windows, ${ROUNDS} rounds  (${os.cpus().length} cores, load ${loadavg()})`,
  );
  const db = await startPg15({ shared_buffers: '1GB' });
  const { apiKey, liveSecret, workspaceId, consent, env } = await prepare(db.url, { media_retention_days: 365 });
  const sql = postgres(db.url, { max: 2, onnotice: () => {} });
  try {
    await seed(sql, workspaceId);
    const service = await startService(env);
    // One verification to read (live, consented), created through the service.
    const body = JSON.stringify({ external_id: 'bench-reader' });
    const created = await fetch(`${service}/v1/verifications`, {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        'x-api-key': apiKey,
        'x-hmac-signature': signJsonRequest(liveSecret, 'POST', '/v1/verifications', body),
      },
    }).then((r) => r.json());
    const id = created.data.id as string;
    const cbody = JSON.stringify({ consent_version_id: consent.id, text_sha256: consent.sha });
    await fetch(`${service}/v1/verifications/${id}/consent`, {
      method: 'POST',
      body: cbody,
      headers: {
        'content-type': 'application/json',
        'x-api-key': apiKey,
        'x-hmac-signature': signJsonRequest(liveSecret, 'POST', `/v1/verifications/${id}/consent`, cbody),
      },
    });
    const path = `/v1/verifications/${id}`;
    const receipts = async () =>
      Number((await sql`select count(*)::int as n from erasure_receipts where workspace_id = ${workspaceId}`)[0].n);
    const retention = (days: number) =>
      sql`update workspaces set media_retention_days = ${days} where id = ${workspaceId}`;

    // 1. The server's own sweep (the in-process runner, paced) beside the API, in alternating windows so that
    //    the rest of the machine's load weighs on both alike: idle (nothing due), then sweeping (all due), …
    await getLoad(service, path, apiKey, liveSecret, 5); // warm-up, discarded
    const idle: Lat[] = [];
    const during: Lat[] = [];
    const rates: number[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      idle.push(await getLoad(service, path, apiKey, liveSecret));
      console.log(`round ${round}  idle            GET ${fmt(idle.at(-1)!)}  load ${loadavg()}`);
      const before = await receipts();
      await retention(30); // all due: the runner's next run (it runs once a minute) sweeps
      const waitStart = Date.now();
      while ((await receipts()) === before) {
        if (Date.now() - waitStart > 90_000) throw new Error('the runner did not start sweeping within 90 s');
        await new Promise((r) => setTimeout(r, 250));
      }
      const t1 = performance.now();
      const n1 = await receipts();
      during.push(await getLoad(service, path, apiKey, liveSecret));
      const n2 = await receipts();
      rates.push((n2 - n1) / ((performance.now() - t1) / 1000));
      console.log(
        `round ${round}  while sweeping GET ${fmt(during.at(-1)!)}  load ${loadavg()}  sweep ${rates.at(-1)!.toFixed(0)}/s`,
      );
      await retention(365); // nothing due: the run ends after its batch
      await new Promise((r) => setTimeout(r, 3000));
    }
    const idleP99 = mean(idle.map((l) => l.p99));
    const sweepP99 = mean(during.map((l) => l.p99));
    console.log(
      `\nGET p99, mean of the windows: idle ${idleP99.toFixed(1)} ms, while the server sweeps ${sweepP99.toFixed(1)} ms: ratio ${(sweepP99 / idleP99).toFixed(2)} (target ≤ 1.20)`,
    );
    const idleMed = median(idle.map((l) => l.p99));
    const sweepMed = median(during.map((l) => l.p99));
    console.log(
      `GET p99, median of the windows: idle ${idleMed} ms, while sweeping ${sweepMed} ms: ratio ${(sweepMed / idleMed).toFixed(2)}; per round (sweeping/idle): ${during.map((l, i) => (l.p99 / idle[i].p99).toFixed(2)).join(' ')}`,
    );
    console.log(
      `GET p50, mean of the windows: idle ${mean(idle.map((l) => l.p50)).toFixed(1)} ms, while sweeping ${mean(during.map((l) => l.p50)).toFixed(1)} ms`,
    );
    console.log(
      `the server's sweep (paced at ${SWEEP_PACE}, beside the GET load): ${mean(rates).toFixed(0)} verifications erased/s`,
    );

    // 2. The rest at full speed, nothing else running: the sweep's own throughput with the backlog still due.
    stopAll();
    await new Promise((r) => setTimeout(r, 2000));
    await retention(30);
    const left = DUE - (await receipts());
    const h = connect(db.url, { max: 4 });
    const t = performance.now();
    const out = await sweepRetention(h.db, { pace: 1, budgetMs: 24 * 3600_000, upgrade: false });
    const secs = (performance.now() - t) / 1000;
    await h.close();
    console.log(
      `full speed, alone (a dedicated sweeper): ${out.erased} of the ${left} still due erased in ${secs.toFixed(1)} s: ${(out.erased / secs).toFixed(0)} verifications/s`,
    );
    const [rest] = await sql`select
        (select count(*) from media_blobs b join media m on m.id = b.media_id join verifications v on v.id = m.verification_id where v.workspace_id = ${workspaceId})::int as blobs,
        (select count(*) from face_embeddings where workspace_id = ${workspaceId})::int as faces,
        (select count(*) from data_keys k join verifications v on v.id = k.verification_id where v.workspace_id = ${workspaceId})::int as keys,
        (select count(*) from erasure_receipts where workspace_id = ${workspaceId})::int as receipts`;
    console.log(
      `left: ${rest.blobs} blobs, ${rest.faces} faces, ${rest.keys} data keys; ${rest.receipts} receipts for ${DUE} verifications`,
    );
    console.log(`load average at the end: ${loadavg()}`);
  } finally {
    stopAll();
    await sql.end();
    await db.stop();
  }
}

if (MAIN) runBench(main);

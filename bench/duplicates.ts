/**
 * npm run bench:duplicates [-- --faces 1000000] [--queries 200] [--ef 100,200] [--hnsw m=32,ef_construction=128]
 *     [--layout one,mixed] [--dev ../shared/eval/dev] [--shared-buffers 3GB] [--maintenance-work-mem 3GB]
 *
 * The duplicate search (lib/domain/duplicates findDuplicates, the pipeline's own query and search settings) on Debian's
 * PostgreSQL 15 + pgvector with `--faces` stored faces, and what it costs to get there. Prints:
 *  - the real embeddings' genuine (same person) and impostor (different people) cosine distributions, and the
 *    generated ones beside them (they must match: see "The faces" below);
 *  - the load: faces a second by COPY without the HNSW index (verifications and faces), then the index build's
 *    time and size (the maintenance_work_mem it ran with, and whether the graph fitted in it), then faces a
 *    second inserted one at a time into the indexed table as the pipeline does (rememberFace, one transaction each);
 *  - per workspace layout and ef_search: search p50/p99 (findDuplicates, timed from the client), recall@10 of the
 *    10 nearest faces the search's first page returns and of the duplicate list, each against the exact answer
 *    (the same query with index scans off: a sequential scan of the workspace), the exact search's p50, and the
 *    plan PostgreSQL chose; then the duplicate count per query, how many queries read further pages of nearest
 *    faces (their first FIRST_DEPTH were all matches) with their latency and the others' apart, and the
 *    10-nearest query alone (the graph walk without the duplicate count).
 * Layouts: `one` puts every face in one workspace (live mode); `mixed` spreads the same faces over 134
 * workspaces (one with 30 % of them, three with 10 %, thirty with 1 %, a hundred with 0.1 %), so that the
 * search of a workspace that is a small part of one shared index is measured (docs/performance.md).
 *
 * The faces. Real embeddings of the dev set (`--dev`, the labelled photos: 60 people x 4 photos and 288 single
 * age faces) are made once by the production analysis (lib/domain/media/analyze.ts, the 128-d face description) and
 * cached per photo under .cache/evaluate (the cache of npm run evaluate; never committed). From them:
 *   μ    the mean embedding;
 *   D    identity directions: each person's centroid − μ, and each age face − μ (348 real identities);
 *   R    within-person residuals: each photo − its person's centroid, × √(4/3) (a centroid of 4 photos absorbs
 *        a quarter of the spread).
 * A synthetic person is μ + α·Σₖ gₖ·dₖ / √Σₖ gₖ² over K = 3 directions dₖ drawn from D with Gaussian weights gₖ (a
 * random blend of real people: the blend has the same covariance as the real identities and keeps their local
 * structure, which independent Gaussian dimensions do not); a photo of that person is that point plus
 * a blend Σⱼ hⱼ·rⱼ of J = 12 residuals drawn from R with Gaussian weights (the real within-person spread, in
 * its real directions), scaled to β times the length of one more residual drawn from R (how far a photo strays
 * from its person varies as much as the real photos do), the sum normalised to unit length as the model's own
 * output is. α and β are fitted (grid search) so that
 * the generated genuine and impostor similarity quantiles (p5…p95) match the real ones. People have 1 to 4
 * stored faces (each its own account, as verifications without external_id); half of the queries are a new
 * photo of a stored person (they have duplicates), half a new person.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import postgres from 'postgres';
import { sql } from 'drizzle-orm';
import { connect, type Db } from '../lib/db/client';
import { applyMigrations } from '../lib/db/migrate';
import {
  EF_SEARCH,
  findDuplicates,
  FIRST_DEPTH,
  HNSW_BUILD,
  rememberFace,
  searchStrategy,
  tuneSearch,
  vectorLiteral,
  type Strategy,
} from '../lib/domain/duplicates';
import { readManifest } from '../evaluation/manifest';
import { measureAll } from '../evaluation/measure';
import { loadFaceModels, type FaceModels } from '../lib/domain/faces/models';
import { analyze } from '../lib/domain/media/analyze';
import { DEFAULT_DUPLICATE_THRESHOLD } from '../lib/domain/thresholds/thresholds';
import { startPg15 } from '../test/helpers/pg15';
import { percentile, root, runBench } from './harness';
import { cliFlags } from '../lib/core/cli-flags';

const flags = cliFlags({
  faces: '100000',
  queries: '200',
  ef: String(EF_SEARCH),
  hnsw: HNSW_BUILD.replace(/ /g, ''),
  layout: 'one,mixed',
  dev: path.join('..', 'shared', 'eval', 'dev'),
  'shared-buffers': '3GB',
  'maintenance-work-mem': '3GB',
  seed: '28',
});
const FACES = Number(flags.faces);
const QUERIES = Number(flags.queries);
const EFS = flags.ef.split(',').map(Number);
const HNSW = flags.hnsw.replace(/[^a-z_=0-9,]/g, '');
const LAYOUTS = flags.layout.split(',');
const DEV = path.resolve(flags.dev);
const SHARED_BUFFERS = flags['shared-buffers'];
const MAINTENANCE_WORK_MEM = flags['maintenance-work-mem'];
const SEED = Number(flags.seed);
const K_DIRECTIONS = 3;
const J_RESIDUALS = 12;

// ---------------------------------------------------------------- real embeddings and their distributions

type Real = { person: string | null; e: Float64Array };

const unit = (v: ArrayLike<number>) => {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i] * v[i];
  n = Math.sqrt(n) || 1;
  return Float64Array.from(v, (x) => x / n);
};
const dot = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
};

async function realFaces(): Promise<Real[]> {
  if (!fs.existsSync(path.join(DEV, 'manifest.csv')))
    throw new Error(`no manifest.csv in ${DEV}: give the labelled dev set with --dev`);
  const rows = readManifest(DEV);
  let models: Promise<FaceModels> | null = null;
  const started = Date.now();
  const records = await measureAll(rows, {
    analyze: async (bytes, kind) => analyze(await (models ??= loadFaceModels()), { bytes, kind }),
    cacheDir: path.join(root, '.cache', 'evaluate'),
    concurrency: 1,
    onProgress: (done, total, cached) => {
      if (done % 50 === 0 || done === total)
        process.stderr.write(
          `  real embeddings: ${done}/${total} (${cached} cached) ${((Date.now() - started) / 1000).toFixed(0)} s\n`,
        );
    },
  });
  return records.filter((r) => r.face?.embedding).map((r) => ({ person: r.person, e: unit(r.face!.embedding!) }));
}

/** Genuine pairs: two photos of one labelled person; impostor pairs: two different labelled people. */
function realPairs(faces: Real[]) {
  const labelled = faces.filter((f) => f.person);
  const genuine: number[] = [];
  const impostor: number[] = [];
  for (let i = 0; i < labelled.length; i++)
    for (let j = i + 1; j < labelled.length; j++)
      (labelled[i].person === labelled[j].person ? genuine : impostor).push(dot(labelled[i].e, labelled[j].e));
  return { genuine, impostor };
}

// ---------------------------------------------------------------- the generator

/** mulberry32: a small seeded generator, so person p's faces are the same in every run and phase. */
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const gauss = () => Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
  return { next, gauss, int: (n: number) => Math.floor(next() * n) };
}
const seedOf = (...xs: number[]) =>
  xs.reduce((h, x) => Math.imul(h ^ (x + 0x9e3779b9), 0x85ebca6b) >>> 0, SEED * 2654435761);

type Model = {
  mu: Float64Array;
  dirs: Float64Array[];
  residuals: Float64Array[];
  norms: number[];
  alpha: number;
  beta: number;
};

function fitModel(faces: Real[]) {
  const d = faces[0].e.length;
  const mu = new Float64Array(d);
  for (const f of faces) for (let k = 0; k < d; k++) mu[k] += f.e[k] / faces.length;
  const byPerson = new Map<string, Float64Array[]>();
  for (const f of faces) if (f.person) byPerson.set(f.person, [...(byPerson.get(f.person) ?? []), f.e]); // 240 photos
  const dirs: Float64Array[] = [];
  const residuals: Float64Array[] = [];
  for (const photos of byPerson.values()) {
    const c = new Float64Array(d);
    for (const e of photos) for (let k = 0; k < d; k++) c[k] += e[k] / photos.length;
    dirs.push(Float64Array.from(c, (x, k) => x - mu[k]));
    const unbias = Math.sqrt(photos.length / Math.max(1, photos.length - 1));
    for (const e of photos) residuals.push(Float64Array.from(e, (x, k) => (x - c[k]) * unbias));
  }
  for (const f of faces) if (!f.person) dirs.push(Float64Array.from(f.e, (x, k) => x - mu[k]));
  return {
    mu,
    dirs,
    residuals,
    norms: residuals.map((x) => Math.sqrt(dot(x, x))),
    people: byPerson.size,
    single: faces.filter((f) => !f.person).length,
  };
}

function person(m: Model, p: number): Float64Array {
  const r = rng(seedOf(p, 1));
  const out = Float64Array.from(m.mu);
  const g = Array.from({ length: K_DIRECTIONS }, () => r.gauss());
  const norm = Math.sqrt(g.reduce((a, x) => a + x * x, 0)) || 1;
  for (let i = 0; i < K_DIRECTIONS; i++) {
    const dir = m.dirs[r.int(m.dirs.length)];
    const w = (m.alpha * g[i]) / norm;
    for (let k = 0; k < out.length; k++) out[k] += w * dir[k];
  }
  return out;
}

function photo(m: Model, id: Float64Array, p: number, k: number): Float64Array {
  const r = rng(seedOf(p, k, 2));
  const noise = new Float64Array(id.length);
  for (let j = 0; j < J_RESIDUALS; j++) {
    const res = m.residuals[r.int(m.residuals.length)];
    const h = r.gauss();
    for (let i = 0; i < noise.length; i++) noise[i] += h * res[i];
  }
  // The blend's direction, at the length of one real residual (how far a photo strays varies from photo to photo).
  const scale = (m.beta * m.norms[r.int(m.norms.length)]) / (Math.sqrt(dot(noise, noise)) || 1);
  return unit(Float64Array.from(id, (x, i) => x + scale * noise[i]));
}

const QS = [1, 5, 10, 25, 50, 75, 90, 95, 99];
const quantiles = (xs: number[]) => QS.map((q) => percentile(xs, q));

/** Genuine and impostor similarities of `n` generated people (person ids far above the stored ones). */
function synthPairs(m: Model, n: number, offset = 1e9) {
  const genuine: number[] = [];
  const impostor: number[] = [];
  let prev: Float64Array | null = null;
  for (let i = 0; i < n; i++) {
    const id = person(m, offset + i);
    const a = photo(m, id, offset + i, 0);
    genuine.push(dot(a, photo(m, id, offset + i, 1)));
    if (prev) impostor.push(dot(a, prev));
    prev = a;
  }
  return { genuine, impostor };
}

/** α, β by grid search: the generated quantiles p5…p95 of both distributions closest to the real ones. */
function calibrate(base: Omit<Model, 'alpha' | 'beta'>, real: { genuine: number[]; impostor: number[] }) {
  const target = { g: quantiles(real.genuine).slice(1, -1), i: quantiles(real.impostor).slice(1, -1) };
  const loss = (alpha: number, beta: number) => {
    const s = synthPairs({ ...base, alpha, beta }, 600);
    const g = quantiles(s.genuine).slice(1, -1);
    const i = quantiles(s.impostor).slice(1, -1);
    return g.reduce((a, x, k) => a + (x - target.g[k]) ** 2, 0) + i.reduce((a, x, k) => a + (x - target.i[k]) ** 2, 0);
  };
  let best = { alpha: 1, beta: 1, l: Infinity };
  for (let alpha = 0.4; alpha <= 2.0001; alpha += 0.1)
    for (let beta = 0.4; beta <= 2.0001; beta += 0.1) {
      const l = loss(alpha, beta);
      if (l < best.l) best = { alpha, beta, l };
    }
  const fine = best;
  for (let alpha = fine.alpha - 0.1; alpha <= fine.alpha + 0.1001; alpha += 0.02)
    for (let beta = fine.beta - 0.1; beta <= fine.beta + 0.1001; beta += 0.02) {
      const l = loss(alpha, beta);
      if (l < best.l) best = { alpha, beta, l };
    }
  return best;
}

// ---------------------------------------------------------------- the stored faces

/** 1 to 4 stored faces a person (mean 2.5). */
const facesOf = (p: number) => 1 + (seedOf(p, 3) % 4);

/** People in order until `n` faces; `start[p]` is the index of person p's first face. */
function population(n: number) {
  const start: number[] = [];
  let f = 0;
  for (let p = 0; f < n; p++) {
    start.push(f);
    f += facesOf(p);
  }
  return { people: start.length, start };
}

type Layout = { name: string; classes: { label: string; share: number; count: number }[] };
const LAYOUT: Record<string, Layout> = {
  one: { name: 'one workspace', classes: [{ label: '100 %', share: 1, count: 1 }] },
  mixed: {
    name: '134 workspaces',
    classes: [
      { label: '30 %', share: 0.3, count: 1 },
      { label: '10 %', share: 0.3, count: 3 },
      { label: '1 %', share: 0.3, count: 30 },
      { label: '0.1 %', share: 0.1, count: 100 },
    ],
  },
};

/** The workspace of each person: by where the person's first face falls in the layout's shares. */
function assign(layout: Layout, pop: ReturnType<typeof population>) {
  const ws: string[] = [];
  const members = new Map<string, number[]>();
  for (let p = 0; p < pop.people; p++) {
    const x = pop.start[p] / FACES;
    let acc = 0;
    let id = '';
    for (const [ci, c] of layout.classes.entries()) {
      if (x < acc + c.share || ci === layout.classes.length - 1) {
        id = `ws_${layout.name === LAYOUT.one.name ? 'one' : 'mx'}_${ci}_${Math.min(c.count - 1, Math.floor(((x - acc) / c.share) * c.count))}`;
        break;
      }
      acc += c.share;
    }
    ws.push(id);
    const list = members.get(id);
    if (list) list.push(p);
    else members.set(id, [p]);
  }
  return { ws, members };
}

const vid = (p: number, k: number) => `vb_${p}_${k}`;
const literal = (v: ArrayLike<number>) => `[${Array.from(v, (x) => x.toFixed(6)).join(',')}]`;

async function copyRows(raw: postgres.Sql, statement: string, lines: () => Generator<string>) {
  const stream = await raw.unsafe(statement).writable();
  const src = lines();
  await pipeline(
    (async function* () {
      let buf = '';
      for (const l of src) {
        buf += l;
        if (buf.length > 1 << 20) {
          yield buf;
          buf = '';
        }
      }
      if (buf) yield buf;
    })(),
    stream as unknown as Writable,
  );
}

// ---------------------------------------------------------------- the run

async function main() {
  const t0 = Date.now();
  const load0 = os.loadavg();
  process.stderr.write(
    `bench:duplicates: ${FACES} faces, layouts ${LAYOUTS.join(', ')}, ef_search ${EFS.join(', ')}, HNSW ${HNSW}\n`,
  );
  const real = await realFaces();
  const realDist = realPairs(real);
  const base = fitModel(real);
  const fit = calibrate({ mu: base.mu, dirs: base.dirs, residuals: base.residuals, norms: base.norms }, realDist);
  const model: Model = {
    mu: base.mu,
    dirs: base.dirs,
    residuals: base.residuals,
    norms: base.norms,
    alpha: fit.alpha,
    beta: fit.beta,
  };
  const synth = synthPairs(model, 20000, 2e9);
  const th = DEFAULT_DUPLICATE_THRESHOLD;
  const above = (xs: number[]) => xs.filter((x) => x >= th).length / xs.length;
  const lines: string[] = [];
  const say = (s: string) => {
    lines.push(s);
    process.stderr.write(s + '\n');
  };
  say(
    `\nbench:duplicates  ${FACES.toLocaleString('en')} faces on PostgreSQL 15 + pgvector, HNSW ${HNSW}, shared_buffers ${SHARED_BUFFERS}, maintenance_work_mem ${MAINTENANCE_WORK_MEM}`,
  );
  say(`load average at start ${load0.map((l) => l.toFixed(1)).join(' ')} on ${os.availableParallelism()} cores`);
  say(
    `\nthe faces: generated from ${real.length} real embeddings of the dev set (${base.people} people with several photos, ${base.single} single faces): ${base.dirs.length} identity directions, ${base.residuals.length} residuals; fitted α ${fit.alpha.toFixed(2)}, β ${fit.beta.toFixed(2)}`,
  );
  say(`  cosine quantiles         ${QS.map((q) => `p${q}`.padStart(6)).join('')}   ≥ ${th} (threshold)`);
  const row = (name: string, xs: number[]) =>
    say(
      `  ${name.padEnd(24)} ${quantiles(xs)
        .map((x) => x.toFixed(3).padStart(6))
        .join('')}   ${(above(xs) * 100).toFixed(2)} %  (n=${xs.length})`,
    );
  row('real genuine', realDist.genuine);
  row('generated genuine', synth.genuine);
  row('real impostor', realDist.impostor);
  row('generated impostor', synth.impostor);

  const pop = population(FACES);
  const pg = await startPg15({
    shared_buffers: SHARED_BUFFERS,
    maintenance_work_mem: MAINTENANCE_WORK_MEM,
    max_parallel_maintenance_workers: '1',
    work_mem: '64MB',
  });
  const notices: string[] = [];
  const rawSql = postgres(pg.url, { max: 2, onnotice: (n) => notices.push(n.message) });
  try {
    await applyMigrations(pg.url);
    const h = connect(pg.url, { max: 2 });
    const db: Db = h.db;
    const ver = (await rawSql`select extversion from pg_extension where extname = 'vector'`)[0]?.extversion;
    say(`pgvector ${ver}; ${pop.people.toLocaleString('en')} people, 1 to 4 faces each`);

    // Workspaces of both layouts exist from the start (the faces move between them).
    const layouts = LAYOUTS.map((l) => {
      if (!LAYOUT[l]) throw new Error(`unknown layout ${l} (one, mixed)`);
      return { key: l, layout: LAYOUT[l], ...assign(LAYOUT[l], pop) };
    });
    const allWs = [...new Set(layouts.flatMap((l) => [...l.members.keys()]))];
    await copyRows(rawSql, `copy workspaces (id, name, flow, check_method, api_key) from stdin`, function* () {
      for (const id of allWs) yield `${id}\t${id}\tage\testimation\tpk_${id}\n`;
    });

    // The load: COPY without the HNSW index (how a large import or a restore goes), verifications first.
    const first = layouts[0];
    const faces = function* (emit: (p: number, k: number, e: Float64Array) => string) {
      for (let p = 0; p < pop.people; p++) {
        const id = person(model, p);
        const n = Math.min(facesOf(p), FACES - pop.start[p]);
        for (let k = 0; k < n; k++) yield emit(p, k, photo(model, id, p, k));
      }
    };
    await rawSql`drop index if exists face_embeddings_hnsw_idx`;
    const tLoad = performance.now();
    await copyRows(
      rawSql,
      `copy verifications (id, workspace_id, mode, flow, capture_token_hash, status, completed_at) from stdin`,
      function* () {
        for (let p = 0; p < pop.people; p++) {
          const n = Math.min(facesOf(p), FACES - pop.start[p]);
          for (let k = 0; k < n; k++)
            yield `${vid(p, k)}\t${first.ws[p]}\tlive\tage\ttok_${p}_${k}\tapproved\t2026-01-01T00:00:00Z\n`;
        }
      },
    );
    const tVer = performance.now();
    await copyRows(
      rawSql,
      `copy face_embeddings (verification_id, workspace_id, mode, external_id, account, embedding) from stdin`,
      () => faces((p, k, e) => `${vid(p, k)}\t${first.ws[p]}\tlive\t\\N\t${vid(p, k)}\t${literal(e)}\n`),
    );
    const tFaces = performance.now();
    await rawSql`analyze verifications`;
    await rawSql`analyze face_embeddings`;
    say(
      `\nload (COPY, no HNSW index yet): ${FACES.toLocaleString('en')} verifications in ${((tVer - tLoad) / 1000).toFixed(0)} s, then their faces in ${((tFaces - tVer) / 1000).toFixed(0)} s: ${Math.round(FACES / ((tFaces - tLoad) / 1000)).toLocaleString('en')} faces/s with their verifications (the faces generated in this process as they are sent)`,
    );

    for (const [li, L] of layouts.entries()) {
      if (li > 0) {
        // Move each person to this layout's workspace (the index goes first: every moved row is a new tuple).
        await rawSql`drop index if exists face_embeddings_hnsw_idx`;
        await rawSql`create temporary table move (id text primary key, ws text not null)`;
        await copyRows(rawSql, `copy move (id, ws) from stdin`, function* () {
          for (let p = 0; p < pop.people; p++)
            for (let k = 0; k < Math.min(facesOf(p), FACES - pop.start[p]); k++) yield `${vid(p, k)}\t${L.ws[p]}\n`;
        });
        await rawSql`update face_embeddings fe set workspace_id = m.ws from move m where m.id = fe.verification_id`;
        await rawSql`drop table move`;
        await rawSql`vacuum full face_embeddings`;
        await rawSql`analyze face_embeddings`;
      }
      notices.length = 0;
      const tb = performance.now();
      await rawSql.unsafe(
        `create index face_embeddings_hnsw_idx on face_embeddings using hnsw (embedding vector_cosine_ops) with (${HNSW})`,
      );
      const build = (performance.now() - tb) / 1000;
      await rawSql`analyze face_embeddings`;
      const [sz] =
        await rawSql`select pg_relation_size('face_embeddings_hnsw_idx')::float8 as idx, pg_table_size('face_embeddings')::float8 as tbl`;
      const mb = (b: number) => `${(b / 2 ** 20).toFixed(0)} MB`;
      const spill = notices.find((n) => /maintenance_work_mem/.test(n));
      say(
        `\n[${L.layout.name}] index build ${build.toFixed(0)} s (${(FACES / build).toFixed(0)} faces/s), index ${mb(sz.idx)}, table ${mb(sz.tbl)}; maintenance_work_mem ${MAINTENANCE_WORK_MEM}, 1 parallel worker: ${spill ? `the graph did not fit: "${spill}"` : 'the graph fitted in memory'}; load average now ${os.loadavg()[0].toFixed(1)}`,
      );

      if (li === 0) {
        // Production inserts: one decision, one face, one transaction, into the indexed table.
        const times: number[] = [];
        const wsId = L.ws[0];
        for (let i = 0; i < 500; i++) {
          const p = 3e9 + i;
          const e = Array.from(photo(model, person(model, p), p, 0));
          const t = performance.now();
          await db.transaction(async (tx) => {
            await tx.execute(
              sql`insert into verifications (id, workspace_id, mode, flow, capture_token_hash, status) values (${vid(p, 0)}, ${wsId}, 'live', 'age', ${'tok_' + p}, 'submitted')`,
            );
            await rememberFace(tx, { id: vid(p, 0), workspaceId: wsId, mode: 'live', externalId: null }, e, new Date());
          });
          times.push(performance.now() - t);
        }
        const total = times.reduce((a, b) => a + b, 0) / 1000;
        say(
          `  inserts into the indexed table (a verification and its face, one transaction each, n=${times.length}): ${(times.length / total).toFixed(0)} faces/s, p50 ${percentile(times, 50).toFixed(1)} ms, p99 ${percentile(times, 99).toFixed(1)} ms`,
        );
      }

      for (const c of L.layout.classes) {
        const wsIds = [...L.members.keys()].filter((w) =>
          w.startsWith(`ws_${L.key === 'one' ? 'one' : 'mx'}_${L.layout.classes.indexOf(c)}_`),
        );
        const n = L.layout.classes.length === 1 ? QUERIES : Math.max(20, Math.round(QUERIES / 2));
        const qs = Array.from({ length: n + 10 }, (_, q) => {
          const r = rng(seedOf(q, 4, L.layout.classes.indexOf(c)));
          const w = wsIds[r.int(wsIds.length)];
          const members = L.members.get(w)!;
          // Half a new photo of a stored person of this workspace, half a new person.
          const p = q % 2 === 0 ? members[r.int(members.length)] : 4e9 + q;
          return { w, returning: q % 2 === 0, e: Array.from(photo(model, person(model, p), p, 100 + q)) };
        });
        // The exact answers: the same queries with index scans off (a sequential scan of the workspace, or of its
        // rows found by the workspace index), the duplicate search timed like the approximate one.
        const exact: { knn: string[]; dups: Set<string>; ms: number }[] = [];
        for (const q of qs) {
          const r = await db.transaction(async (tx) => {
            const t = performance.now();
            const dups = await findDuplicates(
              tx,
              {
                workspaceId: q.w,
                mode: 'live',
                verificationId: 'none',
                externalId: null,
                embedding: q.e,
                threshold: th,
              },
              'exact',
            );
            const ms = performance.now() - t;
            return {
              knn: await nearest(tx, q.w, q.e, 'exact'),
              dups: new Set(dups.duplicates.map((d) => d.verification_id)),
              ms,
            };
          });
          exact.push(r);
        }
        const exactMs = exact.slice(10).map((e) => e.ms);
        const production = await searchStrategy(db, { workspaceId: qs[0].w, mode: 'live' });
        const planOf = async (strategy: Strategy) =>
          db.transaction(async (tx) => {
            await tuneSearch(tx, EFS[0]);
            const q = vectorLiteral(qs[0].e);
            const order =
              strategy === 'index' ? sql`fe.embedding <=> ${q}::vector` : sql`(fe.embedding <=> ${q}::vector) + 0`;
            const rows = await tx.execute<{ 'QUERY PLAN': string }>(
              sql`explain select verification_id from face_embeddings fe where fe.workspace_id = ${qs[0].w} and fe.mode = 'live' and fe.verification_id <> 'none' and fe.embedding is not null order by ${order} limit ${FIRST_DEPTH}`,
            );
            return (
              Array.from(rows)
                .map((x) => x['QUERY PLAN'])
                .find((l) => /Index Scan|Seq Scan|Bitmap Index/.test(l))
                ?.trim()
                .replace(/^->\s*/, '')
                .replace(/\s+\(cost.*$/, '') ?? '?'
            );
          });
        const size = `${Math.round((c.share / c.count) * FACES).toLocaleString('en')} faces, ${c.label} of all; ${wsIds.length} such`;
        say(
          `  workspace of ${size}: exact (every face of the workspace read and sorted: ${await planOf('exact')}) p50 ${percentile(exactMs, 50).toFixed(1)} ms, p99 ${percentile(exactMs, 99).toFixed(1)} ms; the search uses ${production === 'index' ? 'the HNSW index' : 'the exact scan'} here`,
        );
        // The HNSW index at each ef_search (what the search does here when it uses the index; for a workspace
        // it scans exactly, what the index would have given).
        for (const ef of EFS) {
          const lat: number[] = [];
          // Per query: whether the first page (FIRST_DEPTH nearest) was all matches, so the search read further
          // pages (each face is its own account here, so that is a duplicate count of FIRST_DEPTH or more), and the
          // time of the 10-nearest query alone (the graph walk, without the duplicate count).
          const shallow: number[] = [];
          const deep: number[] = [];
          const counts: number[] = [];
          const knnMs: number[] = [];
          let knnHit = 0;
          let dupWant = 0;
          let dupHit = 0;
          let withDups = 0;
          for (const [i, q] of qs.entries()) {
            const input = {
              workspaceId: q.w,
              mode: 'live' as const,
              verificationId: 'none',
              externalId: null,
              embedding: q.e,
              threshold: th,
            };
            const t = performance.now();
            const got = await db.transaction((tx) => findDuplicates(tx, { ...input, efSearch: ef }, 'index'));
            const took = performance.now() - t;
            if (i < 10) continue; // warm-up
            lat.push(took);
            counts.push(got.duplicate_count);
            (got.duplicate_count >= FIRST_DEPTH ? deep : shallow).push(took);
            const tk = performance.now();
            const knn = await db.transaction(async (tx) => {
              await tuneSearch(tx, ef);
              return nearest(tx, q.w, q.e, 'index');
            });
            knnMs.push(performance.now() - tk);
            const want = exact[i].knn;
            const have = new Set(knn);
            knnHit += want.filter((x) => have.has(x)).length;
            const gotDups = new Set(got.duplicates.map((d) => d.verification_id));
            if (exact[i].dups.size) withDups++;
            dupWant += exact[i].dups.size;
            dupHit += [...exact[i].dups].filter((x) => gotDups.has(x)).length;
          }
          const wantTotal = exact.slice(10).reduce((a, e) => a + e.knn.length, 0);
          say(
            `    HNSW ef_search ${String(ef).padStart(3)}${ef === EF_SEARCH ? ' (production)' : ''}: n=${lat.length}  p50 ${percentile(lat, 50).toFixed(1)} ms  p99 ${percentile(lat, 99).toFixed(1)} ms  recall@10 ${(knnHit / wantTotal).toFixed(3)}  duplicate list ${dupWant ? (dupHit / dupWant).toFixed(3) : '–'} (${withDups} of ${lat.length} queries have duplicates)  plan: ${await planOf('index')}`,
          );
          const ms = (xs: number[]) =>
            xs.length ? `p50 ${percentile(xs, 50).toFixed(1)} ms, p99 ${percentile(xs, 99).toFixed(1)} ms` : '–';
          say(
            `      duplicate count per query: p50 ${percentile(counts, 50)}, p90 ${percentile(counts, 90)}; ${deep.length} of ${lat.length} read further pages (the first ${FIRST_DEPTH} nearest all matches): ${ms(deep)}; the others: ${ms(shallow)}; the 10 nearest alone (the graph walk): ${ms(knnMs)}`,
          );
        }
        if (production === 'exact') {
          // The production path end to end (its strategy probe included, cached after the first search).
          const lat: number[] = [];
          for (const [i, q] of qs.entries()) {
            const t = performance.now();
            await db.transaction((tx) =>
              findDuplicates(tx, {
                workspaceId: q.w,
                mode: 'live',
                verificationId: 'none',
                externalId: null,
                embedding: q.e,
                threshold: th,
              }),
            );
            if (i >= 10) lat.push(performance.now() - t);
          }
          say(
            `    the search as it runs (exact here): p50 ${percentile(lat, 50).toFixed(1)} ms  p99 ${percentile(lat, 99).toFixed(1)} ms  recall@10 1.000`,
          );
        }
      }
    }
    await h.close();
  } finally {
    await rawSql.end();
    await pg.stop();
  }
  say(
    `\ntargets within one workspace: p50 < 10 ms, recall@10 ≥ 0.98.  Wall time ${((Date.now() - t0) / 60000).toFixed(1)} min; load average at the end ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  console.log(lines.join('\n'));
}

/** The 10 nearest faces of the search's first page (FIRST_DEPTH deep, as findDuplicates reads it), by distance. */
async function nearest(
  tx: Parameters<Parameters<Db['transaction']>[0]>[0],
  workspaceId: string,
  e: number[],
  strategy: Strategy,
) {
  const q = vectorLiteral(e);
  const order = strategy === 'index' ? sql`fe.embedding <=> ${q}::vector` : sql`(fe.embedding <=> ${q}::vector) + 0`;
  const rows = await tx.execute<{ verification_id: string; d: number }>(sql`
    select verification_id, embedding <=> ${q}::vector as d from face_embeddings fe
    where fe.workspace_id = ${workspaceId} and fe.mode = 'live' and fe.verification_id <> 'none' and fe.embedding is not null
    order by ${order} limit ${FIRST_DEPTH}`);
  return Array.from(rows)
    .sort((a, b) => Number(a.d) - Number(b.d))
    .slice(0, 10)
    .map((r) => r.verification_id);
}

runBench(main);

/**
 * npm run bench:backup [-- --verifications N] [--photo real|KIB] [--skip embedded|pg15]
 *
 * Backup size and time for N verifications (default 10,000), each as a decided one holds them: a selfie as the
 * service stores it (the capture page's 1280x720, re-encoded as JPEG q90: 118 KB; `--photo 8` for 8 KiB), each
 * encrypted under its verification's own data key (so, as in production, no two are alike and none compresses),
 * its analysis and face (HNSW index), its data key, its webhook event (the rows of bench/retention.ts).
 *
 * - Embedded: `npm run ops -- backup` with the server stopped (the CLI process, as an operator runs it); the
 *   same backup online, taken by the engine that serves (what the launcher does on `ops backup` while it runs),
 *   with the longest wait of a query sent during it (the engine is single-threaded: it answers nothing while it
 *   copies); then `npm run ops -- restore` into a new data directory (the backup unpacked apart, its keys checked,
 *   moved into place).
 * - PostgreSQL 15: `pg_dump --format=custom`, and `pg_restore` into a fresh database.
 * docs/deploy.md, "Backing up and restoring", reports the figures.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import sharp from 'sharp';
import { benchFlags, prepare, root, runBench } from './harness';
import { seed } from './retention';
import { startEmbeddedPostgres } from '../lib/db/embedded/pglite-server';
import { startPg15 } from '../test/helpers/pg15';
import { peakResidentBytes, resetPeakResident } from '../test/helpers/memory';
import { aesGcmEncrypt } from '../lib/core/crypto/secretbox';
import { unwrapDataKey } from '../lib/domain/personal-data/data-keys';
import * as I from '../test/helpers/images';
import { PG15_BIN } from '../test/setup/provision.mjs';

const flags = benchFlags({ verifications: '10000', photo: 'real', skip: '' });
const N = Number(flags.verifications);
const PHOTO = flags.photo;
const SKIP = flags.skip;
const tsx = path.join(root, 'node_modules/.bin/tsx');

const loadavg = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
function timed<T>(f: () => T): { value: T; ms: number } {
  const t = performance.now();
  const value = f();
  return { value, ms: performance.now() - t };
}
async function timedAsync<T>(f: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const t = performance.now();
  const value = await f();
  return { value, ms: performance.now() - t };
}

/** The stored form of a selfie (lib/domain/media/analyze.ts: rotated, JPEG q90), or random bytes of the size asked. */
async function photo(): Promise<Buffer> {
  if (PHOTO !== 'real') return Buffer.alloc(Number(PHOTO) * 1024, 7);
  return sharp(await I.selfie1280())
    .rotate()
    .jpeg({ quality: 90, mozjpeg: false })
    .toBuffer();
}

/** The seeded rows (bench-retention's), then each photo blob replaced by the real photo under its verification's data key. */
async function seedWithPhotos(url: string, bytes: Buffer) {
  const { workspaceId, env } = await prepare(url, { media_retention_days: 365 });
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await seed(sql, workspaceId, N, true);
    const t = performance.now();
    let done = 0;
    let last = '';
    for (;;) {
      const rows = await sql<{ media_id: string; verification_id: string; kek_id: string; wrapped: Buffer }[]>`
        select m.id as media_id, m.verification_id, k.kek_id, k.wrapped from media m join data_keys k using (verification_id)
        where m.id > ${last} order by m.id limit 100`;
      if (!rows.length) break;
      const blobs = rows.map((r) => ({
        id: r.media_id,
        c: aesGcmEncrypt(
          bytes,
          `media:${r.media_id}`,
          unwrapDataKey({ verificationId: r.verification_id, kekId: r.kek_id, wrapped: r.wrapped }),
        ).toString('base64'),
      }));
      await sql`update media_blobs b set ciphertext = decode(x.c, 'base64') from json_to_recordset(${JSON.stringify(blobs)}::text::json) as x(id text, c text) where b.media_id = x.id`;
      await sql`update media set byte_size = ${bytes.length} where id in ${sql(rows.map((r) => r.media_id))}`;
      done += rows.length;
      last = rows[rows.length - 1].media_id;
      process.stdout.write(`\r  photos ${done} / ${N}`);
    }
    process.stdout.write(`  (${secs(performance.now() - t)})\n`);
    await sql`vacuum analyze`;
    const [{ size }] = await sql<{ size: string }[]>`select pg_database_size(current_database())::bigint as size`;
    return { env, databaseBytes: Number(size) };
  } finally {
    await sql.end();
  }
}

/**
 * Runs a command under GNU time: its wall time, and its peak memory (maximum resident set size; the kernel's
 * figure for the process and the children it waited for, so `tsx`'s node child is counted).
 */
function measured(cmd: string, args: string[], opts: { env?: NodeJS.ProcessEnv } = {}) {
  const report = path.join(os.tmpdir(), `ov-bench-time-${process.pid}-${Math.random().toString(36).slice(2)}`);
  try {
    const r = timed(() =>
      execFileSync('/usr/bin/time', ['-f', '%M', '-o', report, cmd, ...args], {
        cwd: root,
        env: opts.env ?? process.env,
        maxBuffer: 16 << 20,
      }).toString(),
    );
    return {
      stdout: r.value,
      ms: r.ms,
      peakBytes: Number(fs.readFileSync(report, 'utf8').trim().split('\n').pop()) * 1024,
    };
  } finally {
    fs.rmSync(report, { force: true });
  }
}

function cli(dataDir: string, ...args: string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  delete env.DATABASE_URL;
  delete env.ENCRYPTION_KEY;
  delete env.ENCRYPTION_KEYS_PREVIOUS;
  delete env.ENCRYPTION_KEY_FILE;
  const r = measured(tsx, ['server/ops.ts', ...args, '--json'], { env });
  return { out: JSON.parse(r.stdout), ms: r.ms, peakBytes: r.peakBytes };
}

async function embedded(bytes: Buffer) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ov-bench-backup-'));
  try {
    const dataDir = path.join(dir, 'data');
    fs.mkdirSync(dataDir, { mode: 0o700 });
    let engine = await startEmbeddedPostgres({ dataDir: path.join(dataDir, 'db') });
    const { env, databaseBytes } = await seedWithPhotos(engine.url, bytes);
    const keyFile = path.join(dataDir, 'encryption.key');
    fs.writeFileSync(keyFile, env.ENCRYPTION_KEY + '\n', { mode: 0o600 });
    await engine.stop();

    const offline = cli(dataDir, 'backup', '--out', path.join(dir, 'offline.tar.gz'));
    const noop = cli(dataDir, 'backup', '--help');

    // Online: the serving engine takes the copy while a client keeps asking it something small.
    engine = await startEmbeddedPostgres({ dataDir: path.join(dataDir, 'db') });
    const sql = postgres(engine.url, { max: 1, onnotice: () => {} });
    await sql`select 1`;
    let longest = 0;
    let asking = true;
    const prober = (async () => {
      while (asking) {
        const t = performance.now();
        await sql`select count(*) from verifications where id = 'none'`;
        longest = Math.max(longest, performance.now() - t);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const rssBefore = process.memoryUsage().rss;
    resetPeakResident();
    const online = await timedAsync(() => engine.backup(path.join(dir, 'online.tar.gz')));
    const onlinePeak = peakResidentBytes();
    asking = false;
    await prober;
    await sql.end();
    await engine.stop();

    const target = path.join(dir, 'restored');
    const restore = cli(
      target,
      'restore',
      '--from',
      path.join(dir, 'offline.tar.gz'),
      '--encryption-key-file',
      keyFile,
    );
    return {
      databaseBytes,
      dataDirBytes: Number(
        execFileSync('du', ['-sb', path.join(dataDir, 'db')])
          .toString()
          .split('\t')[0],
      ),
      backupBytes: offline.out.backup.bytes as number,
      offlineMs: offline.ms,
      offlinePeak: offline.peakBytes,
      cliStartMs: noop.ms,
      cliStartPeak: noop.peakBytes,
      onlineMs: online.ms,
      onlineBytes: online.value,
      onlineRssBefore: rssBefore,
      onlinePeak,
      longestQueryMs: longest,
      restoreMs: restore.ms,
      restorePeak: restore.peakBytes,
      restored: restore.out.restored,
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function pg15(bytes: Buffer) {
  const pg = await startPg15();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ov-bench-pgdump-'));
  try {
    const urlOf = (db: string) => pg.url.replace(/\/postgres$/, `/${db}`);
    const admin = postgres(pg.url, { max: 1, onnotice: () => {} });
    await admin`create database live`;
    await admin`create database restored`;
    await admin.end();
    const { databaseBytes } = await seedWithPhotos(urlOf('live'), bytes);
    const dump = path.join(dir, 'open-verify.dump');
    const dumped = measured(`${PG15_BIN}/pg_dump`, ['--format=custom', '--dbname', urlOf('live'), '--file', dump]);
    const restored = measured(`${PG15_BIN}/pg_restore`, [
      '--no-owner',
      '--exit-on-error',
      '--dbname',
      urlOf('restored'),
      dump,
    ]);
    const check = postgres(urlOf('restored'), { max: 1, onnotice: () => {} });
    const [{ v, b }] = await check<
      { v: number; b: number }[]
    >`select (select count(*) from verifications)::int as v, (select count(*) from media_blobs)::int as b`;
    await check.end();
    return {
      databaseBytes,
      dumpBytes: fs.statSync(dump).size,
      dumpMs: dumped.ms,
      dumpPeak: dumped.peakBytes,
      restoreMs: restored.ms,
      restorePeak: restored.peakBytes,
      verifications: v,
      blobs: b,
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    await pg.stop();
  }
}

async function main() {
  const bytes = await photo();
  console.log(
    `bench:backup  ${N} verifications, one ${(bytes.length / 1024).toFixed(0)} KiB photo each (${os.cpus().length} cores, load ${loadavg()})`,
  );
  if (!SKIP.includes('embedded')) {
    console.log('embedded (PGlite):');
    const e = await embedded(bytes);
    console.log(`  database ${mb(e.databaseBytes)} (data directory ${mb(e.dataDirBytes)})`);
    console.log(
      `  ops backup, server stopped: ${mb(e.backupBytes)} in ${secs(e.offlineMs)}, peak memory ${mb(e.offlinePeak)} (the CLI's start alone: ${secs(e.cliStartMs)}, ${mb(e.cliStartPeak)})`,
    );
    console.log(
      `  online backup by the serving engine: ${mb(e.onlineBytes)} in ${secs(e.onlineMs)}; the longest wait of a query meanwhile ${secs(e.longestQueryMs)}; the serving process's peak memory ${mb(e.onlinePeak)} (${mb(e.onlineRssBefore)} before)`,
    );
    console.log(
      `  ops restore (unpack apart, key check, move into place): ${secs(e.restoreMs)}, peak memory ${mb(e.restorePeak)}: ${e.restored.verifications} verifications, ${e.restored.media} media`,
    );
    console.log(`  load average now ${loadavg()}`);
  }
  if (!SKIP.includes('pg15')) {
    console.log('PostgreSQL 15:');
    const p = await pg15(bytes);
    console.log(`  database ${mb(p.databaseBytes)}`);
    console.log(`  pg_dump --format=custom: ${mb(p.dumpBytes)} in ${secs(p.dumpMs)}, peak memory ${mb(p.dumpPeak)}`);
    console.log(
      `  pg_restore into a fresh database: ${secs(p.restoreMs)}, peak memory ${mb(p.restorePeak)}: ${p.verifications} verifications, ${p.blobs} photos`,
    );
    console.log(`  load average now ${loadavg()}`);
  }
}

runBench(main);

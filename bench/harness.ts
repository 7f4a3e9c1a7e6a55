/** Shared set-up of the benchmarks: a database, the production server, a workspace, each in its own process. */
import { spawn, type ChildProcess } from 'node:child_process';
import { resetEnvCache } from '../lib/core/env';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { applyMigrations } from '../lib/db/migrate';
import { cliFlags, type Flags } from '../lib/core/cli-flags';
import { connect } from '../lib/db/client';
import { startPg15 } from '../test/helpers/pg15';
import { ensureBuild as buildIfMissing, freePort } from '../test/helpers/server';

export { freePort };

export const root = path.resolve(import.meta.dirname, '..');
const children: ChildProcess[] = [];

/** The harness's own flag, which every benchmark that calls prepare() takes: the server's DATABASE_POOL_SIZE. */
const HARNESS_FLAGS = { pool: '10' };
let harnessFlags: Flags<typeof HARNESS_FLAGS> = HARNESS_FLAGS;

/**
 * A benchmark's flags, declared with their defaults, and the harness's (`--pool`): lib/core/cli-flags.ts (an unknown
 * flag ends the run with the known ones listed). `argv: []` gives the defaults (a benchmark imported by another).
 */
export function benchFlags<const F extends Record<string, string>>(spec: F, opts: { argv?: string[] } = {}): Flags<F> {
  const flags = cliFlags({ ...HARNESS_FLAGS, ...spec }, opts);
  harnessFlags = { pool: String(flags.pool) };
  return flags;
}

export function startChild(
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  readyOn: RegExp,
  ipc = false,
): Promise<{ proc: ChildProcess; line: string }> {
  const proc = spawn(cmd, args, {
    cwd: root,
    env,
    stdio: ipc ? ['ignore', 'pipe', 'inherit', 'ipc'] : ['ignore', 'pipe', 'inherit'],
  });
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

export const ensureBuild = () => buildIfMissing(true);

/** The embedded engine in a process of its own, or Debian's PostgreSQL 15. */
export async function startDatabase(kind: string): Promise<{ url: string; stop: () => Promise<void> }> {
  if (kind === 'pg15') return startPg15();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ov-bench-'));
  const { proc, line } = await startChild(
    path.join(root, 'node_modules/.bin/tsx'),
    ['bench/embedded-db.ts', path.join(dir, 'db')],
    process.env,
    /"url"/,
  );
  return {
    url: JSON.parse(line).url,
    stop: async () => {
      proc.kill('SIGTERM');
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Migrates, creates a workspace with the rate limit raised, and returns its credentials and the env. */
export async function prepare(
  dbUrl: string,
  settings: Record<string, unknown> = {},
  workspace: { check_method?: 'estimation' | 'document_verification'; flow?: 'age' | 'kyc' } = {},
) {
  const encryptionKey = randomBytes(32).toString('base64');
  process.env.ENCRYPTION_KEY = encryptionKey;
  process.env.BASE_URL = 'http://bench.local';
  resetEnvCache();
  await applyMigrations(dbUrl);
  const h = connect(dbUrl, { max: 2 });
  const { createWorkspace } = await import('../lib/domain/workspaces');
  const { ensureConsent } = await import('../test/helpers/factories');
  const ws = await createWorkspace(h.db, {
    name: 'bench',
    ...workspace,
    settings: { rate_limit_per_minute: 1_000_000, ...settings },
  });
  const consent = await ensureConsent(h.db);
  await h.close();
  const env: NodeJS.ProcessEnv = {
    DATABASE_POOL_SIZE: harnessFlags.pool,
    ...process.env,
    DATABASE_URL: dbUrl,
    ENCRYPTION_KEY: encryptionKey,
    BASE_URL: 'http://bench.local',
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    NEXT_TELEMETRY_DISABLED: '1',
  };
  const secretOf = (mode: 'test' | 'live') => ws.secretKeys.find((k) => k.mode === mode)!.secret;
  return {
    apiKey: ws.workspace.apiKey,
    secret: secretOf('test'),
    liveSecret: secretOf('live'),
    workspaceId: ws.workspace.id,
    consent: { id: consent.id, sha: consent.textSha256 },
    env,
  };
}

/**
 * The production server as `npm start` runs it (server/serve.ts: Next behind the service's own HTTP server),
 * with an IPC channel through which `memory()` reads its process.memoryUsage(). BENCH_SERVICE_FLAGS in the environment
 * adds node flags to it (`--cpu-prof --cpu-prof-dir=DIR` to profile it: docs/performance.md "API throughput").
 */
export async function startServer(
  env: NodeJS.ProcessEnv,
): Promise<{ base: string; proc: ChildProcess; memory: () => Promise<NodeJS.MemoryUsage> }> {
  const port = await freePort();
  const { proc } = await startChild(
    process.execPath,
    [
      ...(process.env.BENCH_SERVICE_FLAGS ? process.env.BENCH_SERVICE_FLAGS.split(' ') : []),
      '--import',
      'tsx',
      path.join(root, 'server/serve.ts'),
      'start',
    ],
    { ...env, NODE_ENV: 'production', PORT: String(port) },
    /Ready/,
    true,
  );
  const memory = () =>
    new Promise<NodeJS.MemoryUsage>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error('no memory answer')), 10_000);
      proc.once('message', (m: { type?: string } & NodeJS.MemoryUsage) => {
        clearTimeout(t);
        resolve(m);
      });
      proc.send({ type: 'memory' });
    });
  return { base: `http://127.0.0.1:${port}`, proc, memory };
}

export async function startService(env: NodeJS.ProcessEnv): Promise<string> {
  return (await startServer(env)).base;
}

/** Resident memory of a process, MB (Linux /proc). */
export function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

export function stopAll() {
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
}

export const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

/** Runs a benchmark's main and always stops what it started. */
export function runBench(main: () => Promise<void>) {
  main()
    .catch((e) => {
      console.error(e);
      process.exitCode = 1;
    })
    .finally(() => {
      stopAll();
      setTimeout(() => process.exit(), 1000);
    });
}

/**
 * Where the database and the encryption key come from, for every process of this service: the
 * launcher, the operator CLI and the benchmarks.
 *
 * - DATABASE_URL set: that Postgres (pgvector required); ENCRYPTION_KEY required.
 * - unset: the embedded PGlite in $DATA_DIR/db. The launcher owns it and serves it on a loopback port with
 *   a password generated at each start (SCRAM-SHA-256), recorded in $DATA_DIR/server.json; another process
 *   of the same user (the CLI) connects there while the server runs, and opens the data directory itself
 *   only when no server holds it. The directory and everything in it are readable by their owner only.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Env } from '../core/env';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './embedded/pglite-server';

export type Runtime = {
  databaseUrl: string;
  encryptionKey: string;
  embedded?: EmbeddedPostgres;
  /** The key file this process generated (the embedded default's first start), to remove if the start is refused. */
  generatedKeyFile?: string;
  /** Stops what this process started (the embedded engine, if it opened it). */
  release: () => Promise<void>;
};

export class RuntimeError extends Error {}

const serverFile = (dataDir: string) => path.join(dataDir, 'server.json');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The running server's embedded database, if a live launcher owns one. */
export function runningServer(dataDir: string): { pid: number; databaseUrl: string } | undefined {
  try {
    const s = JSON.parse(fs.readFileSync(serverFile(dataDir), 'utf8'));
    if (typeof s.pid === 'number' && alive(s.pid) && typeof s.databaseUrl === 'string') return s;
  } catch {
    /* no server */
  }
  return undefined;
}

/**
 * The data directory, readable by its owner only: the directory 0700, everything in it 0600/0700 (an
 * existing directory from before is closed too), and this process's umask 077 so the engine's new files are.
 */
export function secureDataDir(dataDir: string) {
  process.umask(0o077);
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const walk = (p: string) => {
    const st = fs.lstatSync(p);
    if (st.isSymbolicLink()) return;
    if (st.isDirectory()) {
      if ((st.mode & 0o077) !== 0) fs.chmodSync(p, st.mode & 0o700);
      for (const name of fs.readdirSync(p)) walk(path.join(p, name));
    } else if ((st.mode & 0o077) !== 0) fs.chmodSync(p, st.mode & 0o700);
  };
  walk(dataDir);
}

/** Writes a file readable by the owner only, atomically (a reader never sees half of it). */
function writePrivate(file: string, text: string) {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, text, { mode: 0o600 });
  fs.chmodSync(tmp, 0o600);
  fs.renameSync(tmp, file);
}

export function loadOrCreateEncryptionKey(dataDir: string): { key: string; generated?: string } {
  const file = path.join(dataDir, 'encryption.key');
  if (fs.existsSync(file)) return { key: fs.readFileSync(file, 'utf8').trim() };
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const key = randomBytes(32).toString('base64');
  fs.writeFileSync(file, key + '\n', { mode: 0o600, flag: 'wx' });
  return { key, generated: file };
}

/**
 * Resolves the database. `own: true` (the launcher) starts the embedded engine and serves it on
 * `port`; otherwise an already running server's database is preferred.
 */
export async function resolveRuntime(env: Env, opts: { own: boolean; port?: number }): Promise<Runtime> {
  if (env.DATABASE_URL) {
    if (!env.ENCRYPTION_KEY) {
      throw new RuntimeError(
        'ENCRYPTION_KEY is required with DATABASE_URL (32 bytes, base64: openssl rand -base64 32).',
      );
    }
    return { databaseUrl: env.DATABASE_URL, encryptionKey: env.ENCRYPTION_KEY, release: async () => {} };
  }
  const dataDir = path.resolve(env.DATA_DIR);
  const running = runningServer(dataDir);
  // The owner opening the data directory closes it to everyone else (a process that only connects cannot).
  if (!running) secureDataDir(dataDir);
  const own = env.ENCRYPTION_KEY ? undefined : loadOrCreateEncryptionKey(dataDir);
  const encryptionKey = env.ENCRYPTION_KEY ?? own!.key;
  if (running) {
    if (opts.own) {
      throw new RuntimeError(
        `The service is already running on this data directory (pid ${running.pid}); stop it first.`,
      );
    }
    return { databaseUrl: running.databaseUrl, encryptionKey, release: async () => {} };
  }
  const embedded = await startEmbeddedPostgres({ dataDir: path.join(dataDir, 'db'), port: opts.port ?? 0 });
  // Whoever opens the data directory serves it, so a second process connects instead of opening it twice.
  // The URL carries the engine's generated password: the file is the owner's alone.
  writePrivate(serverFile(dataDir), JSON.stringify({ pid: process.pid, databaseUrl: embedded.url }));
  return {
    databaseUrl: embedded.url,
    encryptionKey,
    embedded,
    generatedKeyFile: own?.generated,
    release: async () => {
      fs.rmSync(serverFile(dataDir), { force: true });
      await embedded.stop();
    },
  };
}

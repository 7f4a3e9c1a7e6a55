/**
 * A real multi-connection PostgreSQL 15 (Debian's server) for the tests where concurrency matters.
 * Starts a throwaway cluster as the postgres user on a free loopback port; the test setup installs the
 * server and pgvector first when missing (test/setup/provision.mjs).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { PG15_BIN as BIN, provision } from '@/test/setup/provision.mjs';
import { freePort } from './server';

// initdb refuses root: run the server's programs as the postgres user, directly (so signals reach them).
function postgresUser() {
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
  return { uid, gid };
}

/** `settings`: extra server settings, e.g. { shared_buffers: '2GB' } for the duplicate-search benchmark. */
export type Pg15 = {
  url: string;
  stop: () => Promise<void>;
  /** A clean shutdown (fast: open transactions are rolled back) and a start again on the same port. */
  restart: (downMs?: number) => Promise<void>;
};

export async function startPg15(settings: Record<string, string> = {}): Promise<Pg15> {
  provision(['pg15']);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ov-pg15-'));
  const data = path.join(dir, 'data');
  const user = postgresUser();
  fs.chownSync(dir, user.uid, user.gid);
  execFileSync(`${BIN}/initdb`, ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'], {
    stdio: 'ignore',
    ...user,
    cwd: dir,
  });
  const port = await freePort();
  const args = [
    '-D',
    data,
    '-p',
    String(port),
    '-k',
    dir,
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'fsync=off',
    '-c',
    'synchronous_commit=off',
    '-c',
    'max_connections=300',
    ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`]),
  ];
  let proc: ChildProcess = spawn(`${BIN}/postgres`, args, { stdio: 'ignore', ...user, cwd: dir });
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const ready = async () => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const sql = postgres(url, { max: 1, onnotice: () => {}, connect_timeout: 2 });
      try {
        await sql`select 1`;
        await sql.end();
        return;
      } catch (e) {
        await sql.end({ timeout: 1 }).catch(() => {});
        if (Date.now() > deadline || proc.exitCode !== null)
          throw new Error(`PostgreSQL 15 did not start: ${(e as Error).message}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  };
  await ready();
  const halt = async () => {
    proc.kill('SIGINT');
    await new Promise((r) => (proc.exitCode !== null || proc.signalCode !== null ? r(null) : proc.once('exit', r)));
  };
  return {
    url,
    stop: async () => {
      await halt();
      fs.rmSync(dir, { recursive: true, force: true });
    },
    restart: async (downMs = 0) => {
      await halt();
      await new Promise((r) => setTimeout(r, downMs));
      proc = spawn(`${BIN}/postgres`, args, { stdio: 'ignore', ...user, cwd: dir });
      await ready();
    },
  };
}

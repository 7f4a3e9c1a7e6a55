/** Runs the real launcher (`npm start` on an embedded database in a temporary data directory). */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { opsSync } from './ops-sync';
import { testLogFile } from './test-logs';

export const root = path.resolve(import.meta.dirname, '../..');
export const tsx = path.join(root, 'node_modules/.bin/tsx');

/** `next build` unless a build exists (CI builds first; a stale local build is rebuilt by `npm run build`). */
export function ensureBuild(log = false) {
  if (fs.existsSync(path.join(root, '.next/BUILD_ID'))) return;
  if (log) console.log('building (next build)…');
  execFileSync(process.execPath, [path.join(root, 'node_modules/next/dist/bin/next'), 'build'], {
    cwd: root,
    stdio: 'ignore',
  });
}

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

export function childEnv(dataDir: string, port: number, extra: Record<string, string> = {}) {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: String(port),
    LOG_LEVEL: 'info',
    NEXT_TELEMETRY_DISABLED: '1',
  };
  delete env.DATABASE_URL;
  delete env.ENCRYPTION_KEY;
  delete env.ENCRYPTION_KEY_FILE;
  delete env.ENCRYPTION_KEYS_PREVIOUS;
  delete env.BASE_URL;
  delete env.VITEST;
  return { ...env, ...extra };
}

/**
 * The operator CLI (`server/ops.ts … --json`) for the server of this data directory and port: each call's JSON
 * answer (main() in a worker thread with that environment: test/helpers/ops-sync.ts).
 */
export function opsCli(dataDir: string, port: number, extra: Record<string, string> = {}) {
  return (...args: string[]) => JSON.parse(opsSync([...args, '--json'], childEnv(dataDir, port, extra)));
}

/** The demo workspace's public key and test secret, as the launcher prints them on its first start. */
export function demoKeys(out: string): { apiKey: string; testSecret: string } {
  return { apiKey: /X-API-Key\s+(pk_\w+)/.exec(out)![1], testSecret: /test secret\s+(sk_test_\w+)/.exec(out)![1] };
}

export type Server = { proc: ChildProcess; out: () => string; base: string };

export async function start(dataDir: string, port: number, extra: Record<string, string> = {}): Promise<Server> {
  // Its own process group, so kill() can take the launcher, Next and the embedded database down at once.
  const proc = spawn(tsx, ['server/launch.ts', 'start'], {
    cwd: root,
    env: childEnv(dataDir, port, extra),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  // The logs (stderr: JSON lines) are also kept for npm run test:logs, which searches them for what must never
  // be logged. (stdout carries the first start's banner, which shows the demo secrets once, on purpose.)
  const file = fs.createWriteStream(testLogFile(`server-${port}-${Date.now()}.log`), { flags: 'a' });
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d: Buffer) => {
    out += d;
    // The HTTP server (another process of the group) may still write after the launcher exited (killed alone).
    if (!file.writableEnded) file.write(d);
  });
  proc.once('exit', () => file.end());
  const base = `http://127.0.0.1:${port}`;
  // Generous: a first start (initdb of the embedded engine, the workers' models) on a busy 2-core machine takes minutes.
  const deadline = Date.now() + 180_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`launcher exited: ${out}`);
    try {
      const r = await fetch(`${base}/v1/none`);
      if (r.status === 404) break;
    } catch {
      /* not yet */
    }
    if (Date.now() > deadline) throw new Error(`server did not start: ${out}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return { proc, out: () => out, base };
}

/**
 * A start that must be refused: the launcher's exit status and everything it printed. A server that comes up
 * instead is stopped and reported as an error.
 */
export async function startRefused(
  dataDir: string,
  port: number,
  extra: Record<string, string> = {},
): Promise<{ code: number | null; out: string }> {
  const proc = spawn(tsx, ['server/launch.ts', 'start'], {
    cwd: root,
    env: childEnv(dataDir, port, extra),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  const deadline = Date.now() + 180_000;
  const served = (async () => {
    for (;;) {
      if (proc.exitCode !== null || proc.signalCode !== null) return false;
      if (Date.now() > deadline) return true;
      if (
        await fetch(`http://127.0.0.1:${port}/v1/none`).then(
          () => true,
          () => false,
        )
      )
        return true;
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  if (await Promise.race([served, exited.then(() => false)])) {
    await stop({ proc, out: () => out, base: '' });
    throw new Error(`the launcher neither refused nor exited: ${out}`);
  }
  return { code: await exited, out };
}

export async function stop(s: Server): Promise<number | null> {
  s.proc.kill('SIGINT');
  return new Promise((r) => (s.proc.exitCode !== null ? r(s.proc.exitCode) : s.proc.once('exit', (code) => r(code))));
}

/** A crash: SIGKILL to the whole process group (launcher, Next, embedded database), no clean-up. */
export async function kill(s: Server): Promise<void> {
  process.kill(-s.proc.pid!, 'SIGKILL');
  await new Promise((r) => (s.proc.exitCode !== null || s.proc.signalCode !== null ? r(null) : s.proc.once('exit', r)));
  // Until every process of the group is gone (the launcher's children die a moment after it).
  for (;;) {
    try {
      process.kill(-s.proc.pid!, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

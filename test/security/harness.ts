/**
 * What the security, crash and lifecycle suites share: the production server started by the real
 * launcher, the operator CLI against it, raw HTTP (paths and bytes exactly as given), the check that an
 * answer is a documented error envelope, and the server process's memory.
 */
import { apiClient } from '@/test/helpers/api-client';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { expect } from 'vitest';
import { HTTP_STATUS } from '@/lib/api/http-status';
import { ERROR_CODES } from '@/lib/core/errors';
import { selfSignedCert, startReceiver } from '@/test/helpers/https-receiver';
import { startPg15 } from '@/test/helpers/pg15';
import { childEnv, ensureBuild, freePort, root, start, stop, type Server } from '@/test/helpers/server';
import { opsSync } from '@/test/helpers/ops-sync';

export type Service = {
  server: Server;
  port: number;
  dataDir: string;
  env: Record<string, string>;
  ops: (...args: string[]) => JsonValue;
  /** The PID of the process that serves HTTP (server/serve.ts), in the launcher's process group. */
  httpPid: () => number;
  restart: () => Promise<void>;
  stop: () => Promise<number | null>;
  cleanup: () => Promise<void>;
};
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type JsonValue = any;

/** `extra`: environment added to the server's, or made from its port (a BASE_URL naming it). */
export async function startService(
  extra: Record<string, string> | ((port: number) => Record<string, string>) = {},
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ov-sec-')),
): Promise<Service> {
  ensureBuild();
  const port = await freePort();
  const env = { ...(typeof extra === 'function' ? extra(port) : extra) };
  const svc: Service = {
    server: await start(dataDir, port, env),
    port,
    dataDir,
    env,
    // The operator CLI for this server, as `tsx server/ops.ts` would answer, without its start-up (test/helpers/ops-sync.ts).
    ops: (...a) => JSON.parse(opsSync([...a, '--json'], childEnv(dataDir, port, env))),
    httpPid: () => {
      const out = execFileSync('ps', ['-o', 'pid=,args=', '-g', String(svc.server.proc.pid)]).toString();
      const line = out.split('\n').find((l) => l.includes('server/serve.ts'));
      if (!line) throw new Error(`no serve.ts process in\n${out}`);
      return Number(line.trim().split(/\s+/)[0]);
    },
    restart: async () => {
      if (svc.server.proc.exitCode === null && svc.server.proc.signalCode === null) await stop(svc.server);
      svc.server = await start(dataDir, port, env);
    },
    stop: () => stop(svc.server),
    cleanup: async () => {
      if (svc.server.proc.exitCode === null && svc.server.proc.signalCode === null) await stop(svc.server);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return svc;
}

/** A workspace with its keys (rate limit raised unless given), through the operator CLI. */
export function makeWorkspace(
  svc: Service,
  flags: string[] = [],
  settings: string[] = ['--rate-limit-per-minute', '100000'],
) {
  const created = svc.ops('workspace:create', '--name', `sec-${Math.random().toString(36).slice(2, 8)}`, ...flags);
  if (settings.length) svc.ops('workspace:settings', '--workspace', created.workspace.id, ...settings);
  const secret = (mode: string) => created.secret_keys.find((k: { mode: string }) => k.mode === mode).secret as string;
  return {
    id: created.workspace.id as string,
    apiKey: created.workspace.api_key as string,
    test: secret('test'),
    live: secret('live'),
  };
}

export type RawResponse = { status: number; headers: http.IncomingHttpHeaders; text: string; json: JsonValue };

/** One HTTP request with the path and body exactly as given (no URL normalisation on our side). */
export function raw(
  base: string,
  method: string,
  pathAndQuery: string,
  headers: Record<string, string | string[]> = {},
  body?: string | Uint8Array | ((req: http.ClientRequest) => void),
  timeoutMs = 120_000,
): Promise<RawResponse> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    let answered = false;
    // Keep-alive, as browsers and fetch do (`agent: false` would send Connection: close, and a server that
    // answers before the body is in then closes while the client still writes).
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const req = http.request(
      { host: u.hostname, port: u.port, method, path: pathAndQuery, headers, agent, timeout: timeoutMs },
      (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: JsonValue;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode!, headers: res.headers, text, json });
          // A request answered before it was all sent (413 on Content-Length, 401 before the body): done with it.
          if (!req.writableFinished) req.destroy();
          agent.destroy();
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`timeout: ${method} ${pathAndQuery}`)));
    // A server may answer and close before the whole body is sent (a 401 for a 10 MB upload): writing the
    // rest then fails (EPIPE), but the answer was read.
    req.on('error', (e) => {
      if (!answered) reject(e);
    });
    if (typeof body === 'function') body(req);
    else req.end(body);
  });
}

const DOCUMENTED = new Set<string>(ERROR_CODES);

/**
 * The answer is a documented error envelope: a known code whose status (from the one table) is the one
 * sent, a message, JSON, and nothing of the server's insides (no stack, no file paths, no exception text).
 */
export function expectEnvelope(r: RawResponse, allowed?: number[], context = '') {
  const where = `${context} → ${r.status} ${r.text.slice(0, 300)}`;
  expect(r.status, where).toBeGreaterThanOrEqual(400);
  expect(r.status, where).not.toBe(500);
  if (allowed) expect(allowed, where).toContain(r.status);
  expect(String(r.headers['content-type']), where).toMatch(/^application\/json/);
  const e = r.json?.error;
  expect(e, where).toBeTruthy();
  expect(DOCUMENTED.has(e.code), where).toBe(true);
  expect(HTTP_STATUS[e.code as keyof typeof HTTP_STATUS], where).toBe(r.status);
  expect(typeof e.message, where).toBe('string');
  expect(r.text, where).not.toMatch(
    /\n\s+at |node_modules|\/work\/|\.ts:\d+|TypeError|RangeError|SyntaxError: Unexpected/,
  );
  return e as { code: string; message: string; details?: JsonValue };
}

/** The resident memory of a process, in MB (Linux). */
export function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

export { freePort, root };

/**
 * An integrator's signed client over raw(): one connection per request, so a server killed and restarted on
 * the same port never meets a pooled connection to its previous self (fetch's keep-alive pool does).
 */
export function signedClient(base: () => string, apiKey: string, secret: string) {
  return apiClient(base, apiKey, secret, (b, method, p, headers, body) => raw(b, method, p, headers, body));
}

/**
 * What servers on Debian's PostgreSQL 15 share in a test: the database, a client to it, a real HTTPS webhook
 * receiver whose self-signed certificate the servers trust (NODE_EXTRA_CA_CERTS), and the servers' environment
 * (one ENCRYPTION_KEY for all of them, loopback webhook targets allowed).
 */
export async function sharedPg15(extra: Record<string, string> = {}) {
  const pg = await startPg15();
  const sql = postgres(pg.url, { max: 2, onnotice: () => {} });
  const tls = selfSignedCert();
  const rx = await startReceiver(tls);
  const caDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ov-ca-'));
  fs.writeFileSync(path.join(caDir, 'ca.pem'), tls.cert);
  const env: Record<string, string> = {
    DATABASE_URL: pg.url,
    ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    WEBHOOK_ALLOW_PRIVATE_TARGETS: '1',
    NODE_EXTRA_CA_CERTS: path.join(caDir, 'ca.pem'),
    ...extra,
  };
  return {
    pg,
    sql,
    rx,
    env,
    stop: async () => {
      await rx.close();
      await sql.end();
      await pg.stop();
      fs.rmSync(caDir, { recursive: true, force: true });
    },
  };
}

/** Polls `f` every `every` ms until it returns something truthy (that value), or fails naming `what` after `ms`. */
export async function waitFor<T>(
  what: string,
  f: () => Promise<T | undefined | null | false>,
  ms = 90_000,
  every = 200,
): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, every));
  }
}

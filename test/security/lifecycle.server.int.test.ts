/**
 * Readiness for operators (issue #19): /healthz and /readyz, and a graceful SIGTERM that lets a request
 * still arriving and a decision still running finish, refuses new connections, and exits 0.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signJsonRequest, signMultipartRequest } from '@/lib/domain/auth/sign';
import * as I from '@/test/helpers/images';
import { expectEnvelope, makeWorkspace, raw, signedClient, startService, type Service } from './harness';

describe('no orphan server', () => {
  it('the launcher killed on its own (kill -9 of that one process): its HTTP server stops too', async () => {
    // Started with an https BASE_URL (deployed behind TLS): every answer carries Strict-Transport-Security, the
    // framework's pages and API answers and our own server's refusals alike (the other servers of this file,
    // on http, send none: below).
    const svc = await startService({ BASE_URL: 'https://verify.example.test' });
    try {
      for (const [path, status] of [
        ['/healthz', 200],
        ['/v1/consent', 401],
        ['/v1/%ff', 400],
        ['/verify/nope', 200],
      ] as const) {
        const r = await raw(svc.server.base, 'GET', path);
        expect([path, r.status, r.headers['strict-transport-security']]).toEqual([
          path,
          status,
          'max-age=31536000; includeSubDomains',
        ]);
      }
      const group = execFileSync('ps', ['-o', 'pid=,args=', '-g', String(svc.server.proc.pid)]).toString();
      const launcher = Number(
        group
          .split('\n')
          .find((l) => l.includes('server/launch.ts') && !l.includes('node_modules/.bin/tsx '))!
          .trim()
          .split(/\s+/)[0],
      );
      const http = svc.httpPid();
      process.kill(launcher, 'SIGKILL');
      const until = Date.now() + 60_000;
      let alive = true;
      while (alive && Date.now() < until) {
        try {
          process.kill(http, 0);
          await new Promise((r) => setTimeout(r, 200));
        } catch {
          alive = false;
        }
      }
      expect(alive).toBe(false);
    } finally {
      await svc.cleanup();
    }
  }, 240_000);
});

/** The operator's token: /readyz shows each check only to a request bearing it. */
const METRICS = 'lifecycle-metrics-token';
const operator = { authorization: `Bearer ${METRICS}` };

describe('health, readiness and graceful shutdown', () => {
  let svc: Service;
  beforeAll(async () => {
    svc = await startService({ PIPELINE_LEASE_MS: '600000', SHUTDOWN_GRACE_MS: '60000', METRICS_TOKEN: METRICS });
  }, 120_000);
  afterAll(() => svc?.cleanup());

  it('over plain http (no https BASE_URL), no Strict-Transport-Security', async () => {
    for (const path of ['/healthz', '/v1/consent', '/v1/%ff'])
      expect((await raw(svc.server.base, 'GET', path)).headers['strict-transport-security']).toBeUndefined();
  });

  const databaseUrl = () =>
    JSON.parse(fs.readFileSync(path.join(svc.dataDir, 'server.json'), 'utf8')).databaseUrl as string;

  it('GET /healthz: 200 while the process serves; GET /readyz: 200 with each check (for the operator)', async () => {
    const h = await raw(svc.server.base, 'GET', '/healthz');
    expect([h.status, h.json]).toEqual([200, { data: { status: 'ok' } }]);
    const r = await raw(svc.server.base, 'GET', '/readyz', operator);
    expect(r.status).toBe(200);
    expect(r.json.data.checks).toMatchObject({
      draining: { ok: true },
      database: { ok: true },
      migrations: { ok: true, applied: r.json.data.checks.migrations.expected },
      analysis_workers: { ok: true },
    });
  });

  it('/readyz is 503 NOT_READY (with Retry-After) while the database has a migration this server does not know', async () => {
    const sql = postgres(databaseUrl(), { max: 1, onnotice: () => {} });
    try {
      await sql`insert into drizzle.__drizzle_migrations (hash, created_at) values ('from-a-newer-release', 99999999999999)`;
      const r = await raw(svc.server.base, 'GET', '/readyz', operator);
      const e = expectEnvelope(r, [503]);
      expect(e.code).toBe('NOT_READY');
      expect(e.details.checks.migrations).toMatchObject({ ok: false });
      expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    } finally {
      await sql`delete from drizzle.__drizzle_migrations where hash = 'from-a-newer-release'`;
      await sql.end();
    }
    expect((await raw(svc.server.base, 'GET', '/readyz')).status).toBe(200);
  });

  it('SIGTERM: an upload still arriving gets its 201, a decision under way completes, new connections are refused, exit 0', async () => {
    const ws = makeWorkspace(svc, ['--check-method', 'document_verification']);
    const api = signedClient(() => svc.server.base, ws.apiKey, ws.live);
    // A passport flow (reading the MRZ takes about a second): submitted just before the signal.
    const portrait = await I.selfie1280();
    const decideId = await api.prepare({
      selfie: portrait,
      front: ['passport', await I.renderDocument('passport', 'front', portrait)],
    });

    // An upload whose body is still being sent when the signal comes.
    const uploadId = await api.prepare({ selfie: portrait });
    const p = `/v1/verifications/${uploadId}/media`;
    const boundary = 'XyZsigterm';
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="type"\r\n\r\nselfie\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="s.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`,
    );
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const body = Buffer.concat([head, portrait, tail]);
    const sig = signMultipartRequest(ws.live, 'POST', p, [['type', 'selfie']], [portrait]);
    let sendRest = () => {};
    const uploading = raw(
      svc.server.base,
      'POST',
      p,
      {
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(body.length),
        'x-api-key': ws.apiKey,
        'x-hmac-signature': sig,
      },
      (req) => {
        req.write(body.subarray(0, 1000));
        sendRest = () => req.end(body.subarray(1000));
      },
    );
    expect((await api.submit(decideId)).data.status).toBe('submitted');
    // The signal comes while the decision is running (a runner holds the job).
    const db = postgres(databaseUrl(), { max: 1, onnotice: () => {} });
    const until = Date.now() + 20_000;
    let jobStatus = '';
    while (Date.now() < until && jobStatus !== 'running') {
      jobStatus = (await db`select status from pipeline_jobs where verification_id = ${decideId}`)[0]?.status ?? '';
      if (jobStatus !== 'running') await new Promise((r) => setTimeout(r, 20));
    }
    await db.end();
    expect(jobStatus).toBe('running');

    const exited = new Promise<number | null>((r) => svc.server.proc.once('exit', (code) => r(code)));
    process.kill(svc.server.proc.pid!, 'SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    // Draining: a new connection is refused; the request in flight goes on.
    await expect(raw(svc.server.base, 'GET', '/healthz')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    sendRest();
    const up = await uploading;
    expect([up.status, up.json?.data?.status]).toEqual([201, 'uploaded']);
    expect(await exited).toBe(0);

    // After a restart, the decision taken before the exit is there, made in one try (not left to a lease).
    await svc.restart();
    const v = await api.get(decideId);
    expect(v.status).not.toBe('submitted');
    expect(v.reason).not.toBe('processing_error');
    const sql = postgres(databaseUrl(), { max: 1, onnotice: () => {} });
    try {
      const jobs = await sql`select status, tries from pipeline_jobs where verification_id = ${decideId}`;
      expect(jobs.map((j) => [j.status, j.tries])).toEqual([['done', 1]]);
    } finally {
      await sql.end();
    }
    // And the upload that arrived during the drain was stored.
    const u = await raw(svc.server.base, 'GET', `/v1/verifications/${uploadId}`, {
      'x-api-key': ws.apiKey,
      'x-hmac-signature': signJsonRequest(ws.live, 'GET', `/v1/verifications/${uploadId}`),
    });
    expect(u.json.data.status).toBe('started');
  }, 240_000);
});

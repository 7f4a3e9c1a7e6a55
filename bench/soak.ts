/**
 * npm run bench:soak [-- --minutes 10] [--db embedded|pg15] [--journeys-per-minute 40] [--gets-per-second 5]
 *
 * A soak of the production server (server/serve.ts, in-process runner on), bounded in time: steady mixed
 * traffic (verifications created, read, consented, a selfie uploaded, submitted: test mode goes to review,
 * live mode through the decision pipeline, both fire webhooks) while a local HTTPS receiver fails a third of
 * the deliveries (every third request answers 500). It prints:
 *  - every answer by status and code: designed ones (429, 503 with Retry-After) apart from errors;
 *  - heap and RSS of the server sampled every 5 s, and their slope after the warm-up (the first fifth);
 *  - database connections (PostgreSQL's client backends, or the embedded engine's clients) over time;
 *  - webhook accounting: every event delivered, still retrying on schedule, or failed after 4 attempts, and
 *    every delivery the receiver acknowledged matching a recorded one.
 * A benchmark, not a test: it reports; the suites in test/security assert.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { signJsonRequest, signMultipartRequest } from '../lib/domain/auth/sign';
import { selfSignedCert, startReceiver } from '../test/helpers/https-receiver';
import { astronaut, selfie1280 } from '../test/helpers/images';
import { startPg15 } from '../test/helpers/pg15';
import { benchFlags, ensureBuild, prepare, root, rssMb, runBench, startServer, stopAll } from './harness';

const flags = benchFlags({ minutes: '10', db: 'embedded', 'journeys-per-minute': '40', 'gets-per-second': '5' });
const MINUTES = Number(flags.minutes);
const DB = flags.db;
const JOURNEYS_PER_MINUTE = Number(flags['journeys-per-minute']);
const GETS_PER_SECOND = Number(flags['gets-per-second']);

/** Least-squares slope of y over x. */
function slope(points: [number, number][]): number {
  const n = points.length;
  if (n < 2) return NaN;
  const mx = points.reduce((a, p) => a + p[0], 0) / n;
  const my = points.reduce((a, p) => a + p[1], 0) / n;
  const num = points.reduce((a, p) => a + (p[0] - mx) * (p[1] - my), 0);
  const den = points.reduce((a, p) => a + (p[0] - mx) ** 2, 0);
  return num / den;
}

/** The embedded engine in a process of its own, answering how many clients it has over IPC. */
async function embeddedDb(): Promise<{ url: string; connections: () => Promise<number>; stop: () => void }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ov-soak-'));
  const proc: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(root, 'bench/embedded-db.ts'), path.join(dir, 'db')],
    { cwd: root, stdio: ['ignore', 'pipe', 'inherit', 'ipc'] },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let buf = '';
    proc.stdout!.on('data', (d) => {
      buf += d;
      const line = buf.split('\n').find((l) => l.includes('"url"'));
      if (line) resolve(JSON.parse(line).url);
    });
    proc.once('exit', (c) => reject(new Error(`embedded database exited ${c}`)));
  });
  const connections = () =>
    new Promise<number>((resolve) => {
      proc.once('message', (m: { connections: number }) => resolve(m.connections));
      proc.send({ type: 'connections' });
    });
  return { url, connections, stop: () => (proc.kill('SIGTERM'), fs.rmSync(dir, { recursive: true, force: true })) };
}

async function main() {
  ensureBuild();
  const started = Date.now();
  const pg = DB === 'pg15' ? await startPg15() : null;
  const emb = pg ? null : await embeddedDb();
  const dbUrl = pg?.url ?? emb!.url;
  const admin = postgres(dbUrl, { max: 1, onnotice: () => {} });
  const connections = async () =>
    pg
      ? Number(
          (await admin`select count(*)::int as n from pg_stat_activity where backend_type = 'client backend'`)[0].n,
        ) - 1
      : (await emb!.connections()) - 1;

  const tls = selfSignedCert();
  const caFile = path.join(os.tmpdir(), `ov-soak-ca-${process.pid}.pem`);
  fs.writeFileSync(caFile, tls.cert);
  // Every third delivery fails (500): events see retries, on a schedule scaled to the soak.
  const acknowledged = new Set<string>();
  const rx = await startReceiver(tls, (n, got) => {
    if (n % 3 === 0) return { status: 500 };
    acknowledged.add(String(got.headers['x-webhook-id']));
    return { status: 200 };
  });
  const deliveries = () => rx.received.length;

  process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = '1'; // the receiver is on loopback
  const p = await prepare(dbUrl, { webhook_url: rx.url });
  const server = await startServer({
    ...p.env,
    IN_PROCESS_RUNNER: 'on',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: '1',
    WEBHOOK_RETRY_DELAYS: '5,15,30',
    NODE_EXTRA_CA_CERTS: caFile,
    LOG_LEVEL: 'error',
  });
  const base = server.base;
  const photos = [await selfie1280(), astronaut()];

  const answers = new Map<string, number>();
  const note = (k: string) => answers.set(k, (answers.get(k) ?? 0) + 1);
  const call = async (method: string, p2: string, body: string | FormData | undefined, sig: string) => {
    try {
      const r = await fetch(base + p2, {
        method,
        body,
        headers: {
          ...(typeof body === 'string' ? { 'content-type': 'application/json' } : {}),
          'x-api-key': p.apiKey,
          'x-hmac-signature': sig,
        },
      });
      const j = (await r.json()) as { data?: { id?: string; status?: string }; error?: { code: string } };
      note(r.status < 400 ? `${r.status}` : `${r.status} ${j.error?.code}`);
      return { status: r.status, json: j, retryAfter: Number(r.headers.get('retry-after') ?? 0) };
    } catch (e) {
      note(`network ${(e as Error).message}`);
      return { status: 0, json: {} as { data?: { id?: string; status?: string } }, retryAfter: 0 };
    }
  };
  const json = (method: string, p2: string, body = '', secret = p.secret) =>
    call(method, p2, body || undefined, signJsonRequest(secret, method, p2, body));

  const until = Date.now() + MINUTES * 60_000;
  let journeys = 0;
  const journey = async (i: number) => {
    const secret = i % 2 ? p.liveSecret : p.secret;
    const c = await json('POST', '/v1/verifications', JSON.stringify({ external_id: `soak-${i}` }), secret);
    const id = c.json.data?.id;
    if (!id) return;
    await json(
      'POST',
      `/v1/verifications/${id}/consent`,
      JSON.stringify({ consent_version_id: p.consent.id, text_sha256: p.consent.sha }),
      secret,
    );
    const photo = photos[i % photos.length];
    const mp = `/v1/verifications/${id}/media`;
    for (let tries = 0; tries < 5; tries++) {
      const form = new FormData();
      form.append('type', 'selfie');
      form.append('file', new Blob([photo as BlobPart], { type: 'image/jpeg' }), 's.jpg');
      const u = await call('POST', mp, form, signMultipartRequest(secret, 'POST', mp, [['type', 'selfie']], [photo]));
      if (u.status !== 503) break;
      await new Promise((r) => setTimeout(r, Math.max(1, u.retryAfter) * 1000));
    }
    await json('POST', `/v1/verifications/${id}/submit`, '', secret);
    for (let k = 0; k < 20; k++) {
      const g = await json('GET', `/v1/verifications/${id}`, '', secret);
      if (g.json.data?.status !== 'submitted') break;
      await new Promise((r) => setTimeout(r, 500));
    }
    journeys++;
  };

  // Steady rate: a journey every 60/JOURNEYS_PER_MINUTE s, and signed GETs of the consent at GETS_PER_SECOND.
  const running = new Set<Promise<void>>();
  let i = 0;
  const starter = setInterval(() => {
    if (Date.now() >= until) return;
    const j = journey(i++).finally(() => running.delete(j));
    running.add(j);
  }, 60_000 / JOURNEYS_PER_MINUTE);
  const getter = setInterval(() => {
    if (Date.now() < until) void json('GET', '/v1/consent');
  }, 1000 / GETS_PER_SECOND);

  const samples: { t: number; rss: number; heap: number; conns: number }[] = [];
  const sample = async () => {
    const m = await server.memory().catch(() => null);
    samples.push({
      t: (Date.now() - started) / 60_000,
      rss: rssMb(server.proc.pid!),
      heap: m ? m.heapUsed / 1048576 : NaN,
      conns: await connections().catch(() => NaN),
    });
  };
  const sampler = setInterval(() => void sample(), 5000);
  const loadStart = Date.now();
  while (Date.now() < until) {
    await new Promise((r) => setTimeout(r, 1000));
    if ((Date.now() - loadStart) % 60_000 < 1000)
      process.stderr.write(`  ${((Date.now() - loadStart) / 60_000).toFixed(0)} min: ${journeys} journeys\n`);
  }
  clearInterval(starter);
  clearInterval(getter);
  await Promise.all(running);
  // Let the webhook schedule (5, 15, 30 s) play out for what is still retrying.
  const drainUntil = Date.now() + 90_000;
  let pending = 1;
  while (Date.now() < drainUntil && pending > 0) {
    pending = Number((await admin`select count(*)::int as n from webhook_events where state = 'pending'`)[0].n);
    if (pending > 0) await new Promise((r) => setTimeout(r, 2000));
  }
  clearInterval(sampler);
  await sample();

  const events = await admin`select id, state, attempts from webhook_events`;
  const by = (s: string) => events.filter((e) => e.state === s);
  const delivered = by('delivered');
  const unacknowledged = delivered.filter((e) => !acknowledged.has(e.id)).length;
  const strangers = [...acknowledged].filter((id) => !events.some((e) => e.id === id)).length;
  const attempts = Number((await admin`select count(*)::int as n from webhook_attempts`)[0].n);

  const warm = samples.filter((s) => s.t >= samples[0].t + MINUTES / 5);
  const fmt = (x: number, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : 'n/a');
  console.log(
    `\nbench:soak  database=${DB}  ${MINUTES} min  ${os.availableParallelism()} cores  load average at the end ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}`,
  );
  console.log(
    `traffic: ${journeys} journeys (create, consent, upload, submit, read until decided; half test, half live), signed GETs at ${GETS_PER_SECOND}/s`,
  );
  console.log('answers:');
  const designed = /^(429|503 (ANALYSIS_QUEUE_FULL|DATABASE_UNAVAILABLE))/;
  for (const [k, n] of [...answers].sort())
    console.log(
      `  ${k.padEnd(40)} ${String(n).padStart(7)}${/^[45]|network/.test(k) ? (designed.test(k) ? '  (designed)' : '  (ERROR)') : ''}`,
    );
  const errors = [...answers].filter(
    ([k]) => /^[45]|network/.test(k) && !designed.test(k) && !/^422 (FACE_|NO_FACE)/.test(k),
  );
  console.log(`unexpected errors: ${errors.reduce((a, [, n]) => a + n, 0)}`);
  console.log(
    `server RSS: start ${fmt(samples[0]?.rss, 0)} MB, peak ${fmt(Math.max(...samples.map((s) => s.rss)), 0)} MB, end ${fmt(samples.at(-1)!.rss, 0)} MB; slope after warm-up ${fmt(slope(warm.map((s) => [s.t, s.rss])), 2)} MB/min`,
  );
  console.log(
    `server heap used: start ${fmt(samples[0]?.heap, 0)} MB, end ${fmt(samples.at(-1)!.heap, 0)} MB; slope after warm-up ${fmt(slope(warm.map((s) => [s.t, s.heap])), 2)} MB/min`,
  );
  console.log(
    `database connections (${DB === 'pg15' ? 'PostgreSQL client backends' : 'embedded engine clients'}, the soak's own excluded): min ${Math.min(...samples.map((s) => s.conns))}, max ${Math.max(...samples.map((s) => s.conns))}, end ${samples.at(-1)!.conns} (pool size ${p.env.DATABASE_POOL_SIZE ?? 10})`,
  );
  console.log(
    `webhooks: ${events.length} events, ${attempts} attempts (the receiver failed ${Math.floor(deliveries() / 3)} of ${deliveries()} deliveries); ${delivered.length} delivered, ${by('pending').length} still retrying, ${by('failed').length} failed after 4 attempts, ${by('completed').length + by('skipped').length} other`,
  );
  console.log(
    `  every event accounted for: ${delivered.length + by('pending').length + by('failed').length + by('completed').length + by('skipped').length === events.length ? 'yes' : 'NO'}; delivered but never acknowledged by the receiver: ${unacknowledged}; acknowledged but unknown: ${strangers}`,
  );

  await admin.end();
  await rx.close();
  fs.rmSync(caFile, { force: true });
  stopAll();
  emb?.stop();
  await pg?.stop();
}

runBench(main);

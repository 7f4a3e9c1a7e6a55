/**
 * Metrics and traces of the real production server (docs/operating.md): one server with METRICS_TOKEN and
 * OTEL_EXPORTER_OTLP_ENDPOINT set, a live verification taken through it (created, consented, uploaded, submitted,
 * decided by the in-process runner, its webhook failing once then delivered to a real HTTPS receiver, its data
 * erased), then:
 *  - /metrics refuses a scrape without the token; a scrape parses as Prometheus text, has the series of that
 *    work, and holds none of the workspace's secrets or the person's data, nor any id in a label;
 *  - every metric the Grafana dashboard (deploy/grafana) queries is in that scrape;
 *  - a real OTLP receiver got one trace from the submit's HTTP span through the decision job to each webhook
 *    attempt, with database spans, the parent links right, no secret in any span; the server's log lines of
 *    that work carry its trace id.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '@/test/helpers/api-client';
import { selfSignedCert, startReceiver } from '@/test/helpers/https-receiver';
import * as I from '@/test/helpers/images';
import { parsePrometheusText, sampleNames, type Family } from '@/test/helpers/prometheus-text';
import { promqlMetricNames } from '@/test/helpers/promql';
import { ensureBuild, freePort, opsCli, root, start, stop, type Server } from '@/test/helpers/server';
import { ancestors, KIND, spanText, startOtlpReceiver, type FlatSpan } from '@/test/helpers/spans';

const TOKEN = crypto.randomBytes(24).toString('hex');
const marker = crypto.randomBytes(6).toString('hex');
const EXTERNAL_ID = `person-${marker}`;
const METADATA = { crm_note: `meta-${marker}` };

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ov-observability-'));
let server: Server;
let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>;
let rx: Awaited<ReturnType<typeof startReceiver>>;
let scrapeText = '';
let families: Map<string, Family>;
/** What must never appear in a scrape or a span. */
const secrets: Record<string, string> = {};
let verificationId = '';
let captureToken = '';

const scrape = (auth?: string) => fetch(`${server.base}/metrics`, { headers: auth ? { authorization: auth } : {} });
const until = async <T>(what: () => T | Promise<T>, ok: (v: T) => boolean, ms: number): Promise<T> => {
  const end = Date.now() + ms;
  for (;;) {
    const v = await what();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
};
const sample = (name: string, labels: Record<string, string> = {}) =>
  [...families.values()]
    .flatMap((f) => f.samples)
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
const total = (name: string, labels: Record<string, string> = {}) =>
  sample(name, labels).reduce((n, s) => n + s.value, 0);

beforeAll(async () => {
  ensureBuild();
  otlp = await startOtlpReceiver();
  const tls = selfSignedCert();
  const caFile = path.join(dataDir, 'receiver-ca.pem');
  fs.writeFileSync(caFile, tls.cert);
  // The first attempt fails, the second is delivered: both outcomes, two attempt spans, a log line of the failure.
  rx = await startReceiver(tls, [{ status: 500 }, { status: 200 }]);
  const extra = {
    METRICS_TOKEN: TOKEN,
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
    OTEL_BSP_SCHEDULE_DELAY: '200',
    WEBHOOK_RETRY_DELAYS: '1,1,1',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: '1',
    NODE_EXTRA_CA_CERTS: caFile,
  };
  const port = await freePort();
  server = await start(dataDir, port, extra);
  const ops = opsCli(dataDir, port, extra);
  const created = ops('workspace:create', '--name', 'observability', '--check-method', 'estimation');
  const ws = created.workspace;
  ops('workspace:settings', '--workspace', ws.id, '--rate-limit-per-minute', '100000', '--webhook-url', rx.url);
  const live = created.secret_keys.find((k: { mode: string }) => k.mode === 'live').secret;
  Object.assign(secrets, {
    apiKey: ws.api_key,
    workspaceId: ws.id,
    live,
    test: created.secret_keys.find((k: { mode: string }) => k.mode === 'test').secret,
    externalId: EXTERNAL_ID,
    metadata: METADATA.crm_note,
  });
  for (const k of created.secret_keys as { id: string }[]) secrets[`key ${k.id}`] = k.id;
  // A workspace at 1 request a minute (made now: the CLI is slow, and a client's idle connection may be closed meanwhile).
  const limited = ops('workspace:create', '--name', 'observability limited', '--check-method', 'estimation');
  ops('workspace:settings', '--workspace', limited.workspace.id, '--rate-limit-per-minute', '1');
  const limitedApi = apiClient(server.base, limited.workspace.api_key, limited.secret_keys[0].secret);

  const api = apiClient(server.base, ws.api_key, live);
  verificationId = await api.prepare(
    { selfie: await I.selfie1280() },
    { external_id: EXTERNAL_ID, external_metadata: METADATA },
  );
  // A second verification's capture page, twice: its token must not reach a span or a label either.
  captureToken = String((await api.json('POST', '/v1/verifications', '{}')).data.url).split('/verify/')[1];
  Object.assign(secrets, { verificationId, captureToken });
  for (let i = 0; i < 2; i++) expect((await fetch(`${server.base}/verify/${captureToken}`)).status).toBe(200);
  expect((await api.submit(verificationId)).data.status).toBe('submitted');
  const decided = await api.waitDecided(verificationId, 90_000);
  expect(['approved', 'declined', 'resubmission_requested', 'review']).toContain(decided.status);
  // One GET more than the wait's polls (a fast decision is seen by the first poll): at least two in all.
  expect((await api.json('GET', `/v1/verifications/${verificationId}`)).data.status).toBe(decided.status);
  await until(
    () => rx.received.length,
    (n) => n >= 2,
    20_000,
  );
  expect(rx.received).toHaveLength(2);
  expect((await api.json('DELETE', `/v1/verifications/${verificationId}/data`)).data).toBeTruthy();

  // The workspace at 1 request a minute: its second request is refused.
  await limitedApi.json('GET', '/v1/consent');
  expect((await limitedApi.json('GET', '/v1/consent')).error.code).toBe('RATE_LIMIT');

  const res = await scrape(`Bearer ${TOKEN}`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  scrapeText = await res.text();
  families = parsePrometheusText(scrapeText);
}, 420_000);

afterAll(async () => {
  if (server && server.proc.exitCode === null) await stop(server);
  await rx?.close();
  await otlp?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('/metrics of the production server', () => {
  it('a scrape without the token, with another, or with the token in any other form is 401', async () => {
    for (const auth of [
      undefined,
      `Bearer ${TOKEN}x`,
      `Bearer ${TOKEN.slice(1)}`,
      `Basic ${Buffer.from(`u:${TOKEN}`).toString('base64')}`,
      TOKEN,
      `bearer  ${TOKEN}`,
    ]) {
      const r = await scrape(auth);
      expect(r.status, String(auth)).toBe(401);
      expect(await r.text()).not.toContain('http_requests_total');
    }
    expect(
      (await fetch(`${server.base}/metrics`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` } })).status,
    ).toBe(405);
  });

  it("has the series of the work done, each request under its route's template", () => {
    expect(total('http_requests_total', { method: 'POST', route: '/v1/verifications', status: '201' })).toBe(2);
    expect(
      total('http_requests_total', { method: 'POST', route: '/v1/verifications/{id}/submit', status: '200' }),
    ).toBe(1);
    expect(
      total('http_requests_total', { method: 'GET', route: '/v1/verifications/{id}', status: '200' }),
    ).toBeGreaterThanOrEqual(2);
    expect(total('http_requests_total', { method: 'GET', route: '/verify/{token}', status: '200' })).toBe(2);
    expect(total('http_requests_total', { method: 'GET', route: '/v1/consent', status: '429' })).toBe(1);
    expect(
      total('http_request_duration_seconds_count', { method: 'POST', route: '/v1/verifications/{id}/media' }),
    ).toBe(1);
    expect(total('verifications_created_total', { mode: 'live' })).toBe(2);
    const decided = sample('verifications_decided_total', { flow: 'age', mode: 'live', by: 'pipeline' });
    expect(decided.reduce((n, s) => n + s.value, 0)).toBe(1);
    expect(total('webhook_attempts_total', { outcome: 'retry' })).toBe(1);
    expect(total('webhook_attempts_total', { outcome: 'delivered' })).toBe(1);
    expect(total('webhook_delivery_seconds_count')).toBe(1);
    expect(total('webhook_attempt_duration_seconds_count')).toBe(2);
    for (const stage of ['evidence', 'duplicates', 'usable_selfie', 'record', 'total'])
      expect(total('pipeline_stage_duration_seconds_count', { stage }), stage).toBeGreaterThanOrEqual(1);
    expect(total('pipeline_job_wait_seconds_count')).toBeGreaterThanOrEqual(1);
    expect(total('analysis_queue_wait_seconds_count')).toBeGreaterThanOrEqual(1);
    expect(total('analysis_duration_seconds_count', { kind: 'selfie' })).toBeGreaterThanOrEqual(1);
    expect(sample('analysis_workers')[0].value).toBeGreaterThanOrEqual(1);
    expect(total('rate_limit_refusals_total', { scope: 'workspace' })).toBe(1);
    expect(total('retention_sweeps_total')).toBeGreaterThanOrEqual(1);
    expect(total('retention_erasures_total', { trigger: 'request' })).toBe(1);
    // Both jobs started by their events, sent once the submit and the decision committed (not found by the poll).
    expect(
      total('job_runs_total', { job: 'decide-submission', trigger: 'event', outcome: 'ok' }),
    ).toBeGreaterThanOrEqual(1);
    expect(total('job_runs_total', { job: 'deliver-webhook', trigger: 'event', outcome: 'ok' })).toBeGreaterThanOrEqual(
      1,
    );
    for (const queue of ['webhooks', 'pipeline']) {
      expect(sample('outbox_pending', { queue })).toHaveLength(1);
      expect(sample('outbox_oldest_age_seconds', { queue })).toHaveLength(1);
    }
    expect(total('process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it("holds none of the workspace's secrets or the person's data, and no label value is an id or a path as sent", () => {
    for (const [what, value] of Object.entries(secrets)) expect(scrapeText.includes(value), what).toBe(false);
    const values = [...families.values()].flatMap((f) => f.samples.flatMap((s) => Object.values(s.labels)));
    for (const v of values) {
      expect(v, v).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i); // a verification id
      expect(v, v).not.toMatch(/\b(ws|key|evt|job|med|req|wat|aud)_[A-Za-z0-9]{6,}/); // our prefixed ids
      expect(v, v).not.toMatch(/[A-Za-z0-9]{16,}/); // a token, a key
    }
    const routes = new Set(sample('http_requests_total').map((s) => s.labels.route));
    for (const r of routes) expect(r === '(unmatched)' || r.startsWith('/'), r).toBe(true);
  });

  it('every metric the Grafana dashboard queries is in the scrape', () => {
    expect(
      promqlMetricNames(
        'histogram_quantile(0.95, sum by (le, route) (rate(x_bucket{a="b",c=~"d|e"}[$__rate_interval]))) / on (route) y * 60',
      ),
    ).toEqual(['x_bucket', 'y']);
    const dashboard = JSON.parse(fs.readFileSync(path.join(root, 'deploy/grafana/open-verify.json'), 'utf8'));
    const exprs: string[] = dashboard.panels.flatMap((p: { targets?: { expr: string }[] }) =>
      (p.targets ?? []).map((t) => t.expr),
    );
    expect(exprs.length).toBeGreaterThanOrEqual(20);
    const names = new Set(exprs.flatMap(promqlMetricNames));
    expect(names.size).toBeGreaterThanOrEqual(20);
    const scraped = sampleNames(families);
    expect([...names].filter((n) => !scraped.has(n))).toEqual([]);
  });
});

describe('traces of the production server, exported to a real OTLP receiver', () => {
  let trace: FlatSpan[] = [];
  let submitSpan: FlatSpan;

  beforeAll(async () => {
    const isSubmit = (s: FlatSpan) =>
      s.kind === KIND.server && s.attributes['http.route'] === '/v1/verifications/{id}/submit';
    // The second attempt's spans end last: wait until both attempts' spans are in.
    await until(
      () => otlp.spans,
      (spans) => {
        const sub = spans.find(isSubmit);
        return !!sub && spans.filter((s) => s.traceId === sub.traceId && s.name === 'deliver-webhook').length >= 2;
      },
      15_000,
    );
    submitSpan = otlp.spans.find(isSubmit)!;
    trace = otlp.spans.filter((s) => s.traceId === submitSpan.traceId);
  });

  it('one trace runs from the submit request through the decision job to each webhook attempt, with database spans', () => {
    expect(otlp.requests.every((r) => r.path === '/v1/traces' && r.contentType.startsWith('application/json'))).toBe(
      true,
    );
    expect(otlp.resources[0]['service.name']).toBe('open-verify');
    expect(submitSpan.parentSpanId).toBeNull();
    expect(submitSpan.name).toBe('POST /v1/verifications/{id}/submit');
    expect(submitSpan.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.response.status_code': 200,
      'url.path': `/v1/verifications/${verificationId}/submit`,
    });

    const decide = trace.filter((s) => s.name === 'decide-submission');
    expect(decide).toHaveLength(1);
    expect(decide[0].kind).toBe(KIND.consumer);
    expect(ancestors(trace, decide[0]).at(-1)).toBe(submitSpan);

    const deliveries = trace.filter((s) => s.name === 'deliver-webhook');
    expect(deliveries).toHaveLength(2);
    for (const d of deliveries) {
      expect(ancestors(trace, d)).toContain(decide[0]); // the event was written by the decision
      const posts = trace.filter((s) => s.parentSpanId === d.spanId && s.kind === KIND.client && s.name === 'POST');
      expect(posts).toHaveLength(1);
      expect(posts[0].attributes).toMatchObject({
        'http.request.method': 'POST',
        'server.address': '127.0.0.1',
        'url.full': rx.url,
      });
    }
    const statuses = trace
      .filter((s) => s.name === 'POST' && s.kind === KIND.client)
      .map((s) => s.attributes['http.response.status_code'])
      .sort();
    expect(statuses).toEqual([200, 500]);

    const db = trace.filter((s) => s.attributes['db.system.name'] === 'postgresql');
    expect(db.some((s) => ancestors(trace, s)[0] === submitSpan || ancestors(trace, s).includes(submitSpan))).toBe(
      true,
    );
    expect(db.some((s) => ancestors(trace, s).includes(decide[0]))).toBe(true);
    expect(db.some((s) => deliveries.some((d) => ancestors(trace, s).includes(d)))).toBe(true);
    for (const s of db) {
      expect(s.kind).toBe(KIND.client);
      expect(s.attributes['db.operation.name']).toMatch(/^[A-Z]+$/);
      expect(String(s.attributes['db.query.text'])).not.toMatch(/'[^']*[0-9a-f]{8}-[0-9a-f]{4}/); // parameters, not values
    }
    // Every span of the trace hangs on another span of it, up to the request.
    for (const s of trace) if (s !== submitSpan) expect(ancestors(trace, s).at(-1), s.name).toBe(submitSpan);
    // Next.js's own spans (named by the raw URL) are not recorded.
    expect(otlp.spans.some((s) => s.scope === 'next.js')).toBe(false);
  });

  it("no span holds a secret, the person's data or the capture token (its page is /verify/REDACTED)", () => {
    const text = spanText(otlp.spans);
    for (const [what, value] of Object.entries(secrets)) {
      if (what === 'verificationId' || what === 'workspaceId' || what.startsWith('key ')) continue; // ids are not secrets in a trace
      expect(text.includes(value), what).toBe(false);
    }
    const page = otlp.spans.filter((s) => s.attributes['http.route'] === '/verify/{token}');
    expect(
      page.length,
      JSON.stringify(otlp.spans.filter((s) => s.kind === KIND.server).map((s) => [s.name, s.attributes['url.path']])),
    ).toBe(2);
    for (const p of page) expect(p.attributes['url.path']).toBe('/verify/REDACTED');
  });

  it('the log lines of that work carry its trace id', () => {
    const lines = server
      .out()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.trace_id === submitSpan.traceId);
    const messages = lines.map((l) => l.msg);
    expect(messages).toContain('verification decided');
    expect(messages).toContain('webhook attempt'); // the failed first attempt
    for (const l of lines) expect(trace.map((s) => s.spanId)).toContain(l.span_id);
  });
});

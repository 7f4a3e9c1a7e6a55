/**
 * Traces with the SDK's in-memory exporter (docs/operating.md "Traces"), over the real database, the app's route
 * handlers served over HTTP behind the production server's observer (test/helpers/route-server.ts), real image
 * analysis and a real HTTPS webhook receiver:
 *  - without tracing, nothing is traced and no traceparent is written;
 *  - one live submission is one trace: the HTTP span of the submit, the decision job's span, database spans, and a
 *    span for each webhook attempt, with the parent links right, under the in-process runner and under Inngest;
 *  - the log lines of that work carry its trace id;
 *  - the decision and the attempts are counted in the metrics the same way under both runners.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InngestTestEngine } from '@inngest/test';
import { eq } from 'drizzle-orm';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { getDb } from '@/lib/db/client';
import { pipelineJobs, webhookEvents } from '@/lib/db/schema';
import { inngestFunction } from '@/inngest/functions';
import { resetEnvCache } from '@/lib/core/env';
import { JOBS } from '@/lib/domain/jobs';
import type { JobContext } from '@/lib/domain/jobs/job';
import { startLocalRunner } from '@/lib/domain/jobs/local-runner';
import { resetLogger } from '@/lib/core/log';
import { analysisPool } from '@/lib/domain/media/pool';
import { apiClient } from '@/test/helpers/api-client';
import { ensureConsent, makeWorkspace, type TestWorkspace } from '@/test/helpers/factories';
import { ownDatabase } from '@/test/helpers/own-database';
import { selfSignedCert, startReceiver } from '@/test/helpers/https-receiver';
import * as I from '@/test/helpers/images';
import { startRouteServer } from '@/test/helpers/route-server';
import { ancestors, fromReadable, KIND, spanText, type FlatSpan } from '@/test/helpers/spans';
import { testLogFile } from '@/test/helpers/test-logs';
import { updateWorkspaceSettings } from '@/lib/domain/workspaces';
import { counterValue } from '@/test/helpers/metrics';
import { currentTraceparent, tracingEnabled } from './tracing';
import { startTracing, type Tracing } from './tracing-sdk';
import { traceQuery } from './db';

// A database of its own: the runners started here sweep every due job and webhook of their database, and the
// counters must count this file's work only (another file's leftover retries would be counted too).
ownDatabase('embedded');

const tls = selfSignedCert();
const ctx = (): JobContext => ({
  db: getDb(),
  now: () => new Date(),
  webhook: { ca: tls.cert, allowPrivate: true, delays: [1, 1, 1], timeoutMs: 3000 },
  pipeline: { retryDelayMs: () => 0 },
});
const fn = (id: string) =>
  inngestFunction(
    JOBS.find((j) => j.id === id)!,
    ctx,
  );

const exporter = new InMemorySpanExporter();
const lines: Record<string, unknown>[] = [];
let tracing: Tracing | undefined;
let w: TestWorkspace;
let rx: Awaited<ReturnType<typeof startReceiver>>;
let http: Awaited<ReturnType<typeof startRouteServer>>;

const until = async <T>(what: () => T | Promise<T>, ok: (v: T) => boolean, ms = 30_000): Promise<T> => {
  const end = Date.now() + ms;
  for (;;) {
    const v = await what();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
};
const spans = () => exporter.getFinishedSpans().map(fromReadable);
const counter = counterValue;

/** A live verification with consent and a selfie, then submitted: returns its id. */
async function submitted(selfie: Buffer, externalId: string) {
  const api = apiClient(http.base, w.apiKey, w.liveSecret);
  const id = await api.prepare(
    { selfie },
    { external_id: externalId, external_metadata: { note: `meta-${externalId}` } },
  );
  expect((await api.submit(id)).data.status).toBe('submitted');
  return id;
}

/** The trace of a submission: the SERVER span of its submit request and every span of that trace. */
function traceOf(verificationId: string) {
  const all = spans();
  const submit = all.find(
    (s) => s.kind === KIND.server && s.attributes['url.path'] === `/v1/verifications/${verificationId}/submit`,
  );
  expect(submit, 'the submit request has its span').toBeDefined();
  return { submit: submit!, trace: all.filter((s) => s.traceId === submit!.traceId) };
}

function expectOneTrace(submit: FlatSpan, trace: FlatSpan[], attempts: number) {
  expect(submit.parentSpanId).toBeNull();
  expect(submit.name).toBe('POST /v1/verifications/{id}/submit');
  expect(submit.attributes).toMatchObject({
    'http.request.method': 'POST',
    'http.route': '/v1/verifications/{id}/submit',
    'http.response.status_code': 200,
  });
  // Every span of the trace hangs, through its parents, on the request.
  for (const s of trace) if (s !== submit) expect(ancestors(trace, s).at(-1), s.name).toBe(submit);
  // The request's own database statements.
  expect(trace.some((s) => s.attributes['db.system.name'] === 'postgresql' && ancestors(trace, s)[0] === submit)).toBe(
    true,
  );
  const decide = trace.filter((s) => s.name === 'decide-submission');
  expect(decide).toHaveLength(1);
  expect(decide[0].kind).toBe(KIND.consumer);
  const decideDb = trace.filter(
    (s) => s.attributes['db.system.name'] === 'postgresql' && ancestors(trace, s).includes(decide[0]),
  );
  expect(decideDb.map((s) => s.attributes['db.operation.name'])).toEqual(
    expect.arrayContaining(['SELECT', 'UPDATE', 'INSERT']),
  );
  const deliveries = trace.filter((s) => s.name === 'deliver-webhook');
  expect(deliveries).toHaveLength(attempts);
  for (const d of deliveries) {
    expect(ancestors(trace, d)).toContain(decide[0]); // the event was written by the decision
    const post = trace.filter((s) => s.parentSpanId === d.spanId && s.kind === KIND.client && s.name === 'POST');
    expect(post).toHaveLength(1);
    expect(post[0].attributes).toMatchObject({
      'http.request.method': 'POST',
      'server.address': '127.0.0.1',
      'url.full': rx.url,
    });
    expect(trace.some((s) => s.parentSpanId === d.spanId && s.attributes['db.system.name'] === 'postgresql')).toBe(
      true,
    );
  }
  for (const s of trace.filter((x) => x.attributes['db.system.name'])) {
    expect(s.kind).toBe(KIND.client);
    expect(typeof s.attributes['db.query.text']).toBe('string');
  }
  return { decide: decide[0], deliveries };
}

beforeAll(async () => {
  process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = '1';
  resetEnvCache();
  const file = pino.destination({ dest: testLogFile(`vitest-${process.pid}.log`), sync: true, append: true });
  resetLogger({
    write(s: string) {
      lines.push(JSON.parse(s));
      file.write(s);
    },
  });
  await analysisPool().ready();
  await ensureConsent();
  w = await makeWorkspace({ age_threshold: 5 });
  // The first attempt of the in-process runner's submission fails, its retry is delivered; every other attempt is delivered.
  const failed = new Set<string>();
  rx = await startReceiver(tls, (_, got) => {
    const { external_id: externalId, verification_id: id } = JSON.parse(got.body);
    if (!String(externalId).startsWith('traced-local') || failed.has(id)) return { status: 200 };
    failed.add(id);
    return { status: 500 };
  });
  await updateWorkspaceSettings(getDb(), w.workspace.id, { webhook_url: rx.url });
  http = await startRouteServer();
}, 180_000);

afterAll(async () => {
  await tracing?.shutdown();
  await http?.close();
  await rx?.close();
  resetLogger(pino.destination({ dest: testLogFile(`vitest-${process.pid}.log`), sync: true, append: true }));
  delete process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS;
  resetEnvCache();
});

describe('without OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  it('nothing is traced: no traceparent written, statements untouched, no trace id in the logs', async () => {
    expect(tracingEnabled()).toBe(false);
    const query = { then: () => undefined };
    expect(traceQuery(query, 'select 1', { address: 'x', port: 1, database: 'd' })).toBe(query);
    expect(query.then).toBeDefined();
    expect(Object.keys(query)).toEqual(['then']);
    expect(currentTraceparent()).toBeNull();
    const id = await submitted(await I.selfie1280(), `untraced-${Date.now()}`);
    const [job] = await getDb().select().from(pipelineJobs).where(eq(pipelineJobs.verificationId, id));
    expect(job.traceparent).toBeNull();
    // Not decided here: taken off the runners' way, so the next tests count only their own decisions.
    await getDb().update(pipelineJobs).set({ status: 'done' }).where(eq(pipelineJobs.id, job.id));
    expect(lines.some((l) => 'trace_id' in l)).toBe(false);
  });
});

describe('with the tracing SDK (in-memory exporter)', () => {
  beforeAll(async () => {
    tracing = await startTracing({ exporter, batch: false });
  });

  it('a live submission decided by the in-process runner: one trace from the HTTP request through the job to each webhook attempt; its log lines carry the trace id', async () => {
    const before = {
      decided: await counter('verifications_decided_total', { mode: 'live', by: 'pipeline' }),
      retry: await counter('webhook_attempts_total', { outcome: 'retry' }),
      delivered: await counter('webhook_attempts_total', { outcome: 'delivered' }),
    };
    const runner = startLocalRunner({ ...ctx(), pollMs: 3_600_000 });
    let id: string;
    try {
      id = await submitted(I.astronaut(), `traced-local-${Date.now()}`);
      // Decided from the submit's event; its webhook fails once, then is delivered on the runner's timer.
      await until(
        () => rx.received.filter((r) => JSON.parse(r.body).verification_id === id).length,
        (n) => n >= 2,
      );
      await until(
        () => spans().filter((s) => s.name === 'deliver-webhook').length,
        (n) => n >= 2,
        5_000,
      );
    } finally {
      await runner.stop();
    }
    const [job] = await getDb().select().from(pipelineJobs).where(eq(pipelineJobs.verificationId, id));
    const { submit, trace } = traceOf(id);
    // The job row carries the submit's trace (a child of its request span).
    expect(job.traceparent).toMatch(new RegExp(`^00-${submit.traceId}-[0-9a-f]{16}-01$`));
    const { decide, deliveries } = expectOneTrace(submit, trace, 2);
    expect(
      trace
        .filter((s) => s.name === 'POST' && s.kind === KIND.client)
        .map((s) => s.attributes['http.response.status_code'])
        .sort(),
    ).toEqual([200, 500]);

    const ofTrace = lines.filter((l) => l.trace_id === submit.traceId);
    expect(ofTrace.map((l) => l.msg)).toEqual(expect.arrayContaining(['verification decided', 'webhook attempt']));
    const decidedLine = ofTrace.find((l) => l.msg === 'verification decided')!;
    expect(
      ancestors(
        trace,
        trace.find((s) => s.spanId === decidedLine.span_id)!,
      ).concat(trace.find((s) => s.spanId === decidedLine.span_id)!),
    ).toContain(decide);
    expect(deliveries.map((d) => d.spanId)).toContain(ofTrace.find((l) => l.msg === 'webhook attempt')!.span_id);

    expect(await counter('verifications_decided_total', { mode: 'live', by: 'pipeline' })).toBe(before.decided + 1);
    expect(await counter('webhook_attempts_total', { outcome: 'retry' })).toBe(before.retry + 1);
    expect(await counter('webhook_attempts_total', { outcome: 'delivered' })).toBe(before.delivered + 1);
  }, 120_000);

  it('the same submission under Inngest: the job and its webhook attempt continue the trace from their rows', async () => {
    const before = await counter('verifications_decided_total', { mode: 'live', by: 'pipeline' });
    const id = await submitted(I.graceHopper(), `traced-inngest-${Date.now()}`);
    const decided = await new InngestTestEngine({
      function: fn('decide-submission'),
      events: [{ name: 'verification/submitted', data: { verificationId: id } }],
    }).execute();
    expect(decided.result).toMatchObject({ status: expect.any(String) });
    const [event] = await getDb().select().from(webhookEvents).where(eq(webhookEvents.verificationId, id));
    const delivered = await new InngestTestEngine({
      function: fn('deliver-webhook'),
      events: [{ name: 'webhook/enqueued', data: { eventId: event.id } }],
    }).execute();
    expect(delivered.result).toMatchObject({ state: 'delivered', attempts: 1 });
    const { submit, trace } = traceOf(id);
    expectOneTrace(submit, trace, 1);
    expect(await counter('verifications_decided_total', { mode: 'live', by: 'pipeline' })).toBe(before + 1);
  }, 120_000);

  it("no span holds a secret or the person's data: statements without their values, no external_id, no metadata, no keys", () => {
    const text = spanText(spans());
    expect(text).not.toContain(w.liveSecret);
    expect(text).not.toContain(w.testSecret);
    expect(text).not.toContain(w.apiKey);
    expect(text).not.toMatch(/traced-(local|inngest)-\d+/);
    expect(text).not.toContain('meta-traced');
    for (const s of spans().filter((x) => x.attributes['db.query.text']))
      expect(String(s.attributes['db.query.text'])).not.toMatch(/'[^']*traced-/);
  });
});

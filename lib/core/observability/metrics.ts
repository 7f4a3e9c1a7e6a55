/**
 * The Prometheus metrics of this process (docs/operating.md "Metrics"): one prom-client registry with every series,
 * served on /metrics when METRICS_TOKEN is set. Counted where the work happens, so each door and both job runners
 * count alike: HTTP in the server every request passes (server/serve.ts, lib/core/observability/http.ts), verifications
 * and decisions in the domain, jobs in the code both runners call (lib/domain/jobs/job.ts).
 *
 * The registry lives on globalThis, never in this module: Next.js bundles instrumentation.ts, each route handler
 * and the custom server apart, each with its own copy of this module (docs/architecture.md "State of the
 * process"); in module state the routes' counters would sit in a registry nobody scrapes.
 *
 * Labels are few and bounded (a method, a route template, a status, a reason from a fixed list): never an id, a
 * path as sent, an external_id or anything a client chooses. Each process counts its own; Prometheus sums them.
 */
import client from 'prom-client';
import { WALLET_PROTOCOLS, WALLET_REFUSAL_REASONS } from './wallet-codes';

/** Seconds: a fast API read to a slow upload. */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Seconds: a pure check (microseconds) to an OCR pass or a model re-run (seconds). */
const STAGE_BUCKETS = [0.0005, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Seconds a webhook takes from its event to a 2xx: at once, or after the 5 / 15 / 60-minute retries. */
const DELIVERY_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 7200];

export const WEBHOOK_OUTCOMES = ['delivered', 'retry', 'completed', 'failed', 'skipped'] as const;
export const RATE_LIMIT_SCOPES = ['workspace', 'capture_link', 'admin_sign_in', 'failed_signatures'] as const;
export const ERASURE_TRIGGERS = ['retention', 'request'] as const;
export const OUTBOX_QUEUES = ['webhooks', 'pipeline'] as const;
/** What became of a digital ID wallet's response: verified, or the reason it was refused (docs/wallet.md). */
export const WALLET_OUTCOMES = ['verified', ...WALLET_REFUSAL_REASONS] as const;
/** The bounds of the analysis queue (lib/domain/media/pool.ts `queueFull`). */
export const ANALYSIS_REFUSAL_SCOPES = ['verification', 'workspace', 'server'] as const;

export type AnalysisPoolState = { size: number; busy: number; queued: number };

function create() {
  const registry = new client.Registry();
  // Process CPU, memory, heap, event-loop lag, handles: prom-client's standard set.
  client.collectDefaultMetrics({ register: registry });
  const registers = [registry];
  /** Read at scrape time from whatever set it (the analysis pool of this process). */
  const sources: { analysisPool?: () => AnalysisPoolState } = {};
  /** A gauge of the analysis pool's state, read at scrape time. */
  const poolGauge = (name: string, help: string, pick: (p: AnalysisPoolState) => number) =>
    new client.Gauge({
      name,
      help,
      registers,
      collect() {
        const p = sources.analysisPool?.();
        if (p) this.set(pick(p));
      },
    });

  const m = {
    registry,
    sources,
    httpRequests: new client.Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered, by method, route template and status code.',
      labelNames: ['method', 'route', 'status'] as const,
      registers,
    }),
    httpDuration: new client.Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time from a request arriving to its response finishing, by method and route template.',
      labelNames: ['method', 'route'] as const,
      buckets: HTTP_BUCKETS,
      registers,
    }),
    verificationsCreated: new client.Counter({
      name: 'verifications_created_total',
      help: 'Verifications created (an idempotent replay is not counted again), by mode.',
      labelNames: ['mode'] as const,
      registers,
    }),
    verificationsDecided: new client.Counter({
      name: 'verifications_decided_total',
      help: 'Decisions, by the pipeline or a reviewer: by flow, mode, resulting status, reason (none when there is none) and who decided.',
      labelNames: ['flow', 'mode', 'status', 'reason', 'by'] as const,
      registers,
    }),
    walletResponses: new client.Counter({
      name: 'wallet_responses_total',
      help: 'Digital ID wallet responses checked, by protocol and outcome: verified, or the reason it was refused (untrusted_issuer, invalid_signature, digest_mismatch, expired, transcript_mismatch, replayed, claim_missing, malformed).',
      labelNames: ['protocol', 'outcome'] as const,
      registers,
    }),
    pipelineStage: new client.Histogram({
      name: 'pipeline_stage_duration_seconds',
      help: 'Time each stage of a decision takes: gathering the evidence (of which the duplicate search and the document read), each check, recording the decision, and the whole job.',
      labelNames: ['stage'] as const,
      buckets: STAGE_BUCKETS,
      registers,
    }),
    pipelineJobWait: new client.Histogram({
      name: 'pipeline_job_wait_seconds',
      help: 'Time a decision job waited from being due (the submit, or its retry time) to a runner taking it.',
      buckets: DELIVERY_BUCKETS,
      registers,
    }),
    analysisQueueDepth: poolGauge(
      'analysis_queue_depth',
      'Images waiting for an analysis worker in this process.',
      (p) => p.queued,
    ),
    analysisWorkersBusy: poolGauge(
      'analysis_workers_busy',
      'Analysis workers of this process analysing an image now (of analysis_workers).',
      (p) => p.busy,
    ),
    analysisWorkers: poolGauge('analysis_workers', 'Analysis worker threads of this process.', (p) => p.size),
    analysisQueueWait: new client.Histogram({
      name: 'analysis_queue_wait_seconds',
      help: 'Time an image waited in the analysis queue before a worker took it.',
      buckets: STAGE_BUCKETS,
      registers,
    }),
    analysisDuration: new client.Histogram({
      name: 'analysis_duration_seconds',
      help: 'Time a worker took to analyse an image (decode, face and document models), by kind.',
      labelNames: ['kind'] as const,
      buckets: STAGE_BUCKETS,
      registers,
    }),
    analysisRefusals: new client.Counter({
      name: 'analysis_queue_refusals_total',
      help: 'Uploads refused with 503 ANALYSIS_QUEUE_FULL, by the bound that was reached.',
      labelNames: ['scope'] as const,
      registers,
    }),
    outboxPending: new client.Gauge({
      name: 'outbox_pending',
      help: 'Work written but not done, read from the database at scrape time: webhook events not yet delivered (or given up), decision jobs not yet finished.',
      labelNames: ['queue'] as const,
      registers,
    }),
    outboxOldestAge: new client.Gauge({
      name: 'outbox_oldest_age_seconds',
      help: 'Age of the oldest undelivered webhook event, and of the oldest due decision job (0 when none), read at scrape time.',
      labelNames: ['queue'] as const,
      registers,
    }),
    webhookAttempts: new client.Counter({
      name: 'webhook_attempts_total',
      help: 'Webhook delivery attempts, by outcome: delivered (2xx), retry (will be retried), completed (a 4xx, not retried), failed (the last attempt failed), skipped (no webhook URL).',
      labelNames: ['outcome'] as const,
      registers,
    }),
    webhookAttemptDuration: new client.Histogram({
      name: 'webhook_attempt_duration_seconds',
      help: "Time one webhook attempt took, from connecting to the receiver's answer (or the error), by outcome.",
      labelNames: ['outcome'] as const,
      buckets: HTTP_BUCKETS,
      registers,
    }),
    webhookDelivery: new client.Histogram({
      name: 'webhook_delivery_seconds',
      help: 'Time from a webhook event being written (the status change) to its delivery (a 2xx), retries included.',
      buckets: DELIVERY_BUCKETS,
      registers,
    }),
    rateLimitRefusals: new client.Counter({
      name: 'rate_limit_refusals_total',
      help: "Requests refused by a rate limit or throttle, by scope: a workspace's API limit, a capture link's limit, the admin sign-in throttle.",
      labelNames: ['scope'] as const,
      registers,
    }),
    retentionSweeps: new client.Counter({
      name: 'retention_sweeps_total',
      help: 'Runs of the retention sweep.',
      registers,
    }),
    retentionErasures: new client.Counter({
      name: 'retention_erasures_total',
      help: 'Verifications whose data was erased, by trigger: the retention schedule, or a request (API, CLI, admin area).',
      labelNames: ['trigger'] as const,
      registers,
    }),
    jobRuns: new client.Counter({
      name: 'job_runs_total',
      help: 'Runs of each background job (under Inngest or the in-process runner), by job, what started it (event, schedule) and outcome (ok, error).',
      labelNames: ['job', 'trigger', 'outcome'] as const,
      registers,
    }),
    jobDuration: new client.Histogram({
      name: 'job_duration_seconds',
      help: 'Time one run of a background job took, by job.',
      labelNames: ['job'] as const,
      buckets: STAGE_BUCKETS,
      registers,
    }),
  };
  // Series that exist from the start, at 0, so a dashboard and an alert see them before the first event.
  for (const outcome of WEBHOOK_OUTCOMES) m.webhookAttempts.inc({ outcome }, 0);
  for (const scope of RATE_LIMIT_SCOPES) m.rateLimitRefusals.inc({ scope }, 0);
  for (const trigger of ERASURE_TRIGGERS) m.retentionErasures.inc({ trigger }, 0);
  for (const mode of ['test', 'live']) m.verificationsCreated.inc({ mode }, 0);
  for (const scope of ANALYSIS_REFUSAL_SCOPES) m.analysisRefusals.inc({ scope }, 0);
  for (const protocol of WALLET_PROTOCOLS)
    for (const outcome of WALLET_OUTCOMES) m.walletResponses.inc({ protocol, outcome }, 0);
  for (const queue of OUTBOX_QUEUES) {
    m.outboxPending.set({ queue }, 0);
    m.outboxOldestAge.set({ queue }, 0);
  }
  return m;
}

export type Metrics = ReturnType<typeof create>;

const g = globalThis as unknown as { __ovMetrics?: Metrics };

/** The process's metrics, created on first use. */
export function metrics(): Metrics {
  g.__ovMetrics ??= create();
  return g.__ovMetrics;
}

/** Seconds since `startedAt` (a performance.now() reading). */
export const secondsSince = (startedAt: number) => (performance.now() - startedAt) / 1000;

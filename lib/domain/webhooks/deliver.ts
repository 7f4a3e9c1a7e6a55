/**
 * Webhook delivery (docs/webhooks.md "Delivery and retries"). Idempotent and safe on
 * several runners: due events are claimed with FOR UPDATE SKIP LOCKED and leased by pushing
 * next_attempt_at forward; each attempt is signed at send time with the workspace's active key.
 */
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { and, asc, eq, inArray, isNull, lt, lte, max, or } from 'drizzle-orm';
import { secretKeys, verifications, webhookAttempts, webhookEvents, workspaces } from '@/lib/db/schema';
import type { Db, DbOrTx } from '@/lib/db/client';
import { env } from '../../core/env';
import { hmacSha256Hex } from '../../core/crypto/hash';
import { revealSecret } from '../auth/keys';
import { newId, uuidv7 } from '../../core/ids';
import { DomainError } from '../../core/errors';
import { log } from '../../core/log';
import {
  addressProblem,
  allowPrivateTargets,
  isLocalDevelopment,
  isLocalHttpUrl,
  isLoopbackHost,
  PRIVATE_TARGETS_HINT,
  webhookUrlProblem,
} from './ssrf';
import { announce } from '../events/events';
import { DataKeyDestroyedError, ensureDataKey } from '../personal-data/data-keys';
import { AAD, dataKeyRows, keyOpener, sealText } from '../personal-data/personal';
import { openWebhookEvent } from './list';
import { metrics, type WEBHOOK_OUTCOMES } from '../../core/observability/metrics';
import { currentTraceparent, inJobSpan, inSpan, SpanKind, SpanStatusCode } from '../../core/observability/tracing';

export const MAX_ATTEMPTS = 4;
const TIMEOUT_MS = 10_000;
/**
 * How long a claimed event is held before another runner may take it (a runner that died mid-send): one
 * attempt's budget and room to record it. A server that owns its database releases every lease at start
 * (lib/domain/jobs/recover.ts), so after a crash of the embedded default nothing waits for it.
 */
export const LEASE_MS = TIMEOUT_MS + 15_000;
const BODY_KEEP = 1024;

export type DeliverDeps = {
  db: Db;
  now?: () => Date;
  /** Seconds before attempts 2, 3, 4 (WEBHOOK_RETRY_DELAYS). */
  delays?: number[];
  /** Extra trusted CAs (tests with a self-signed receiver); production uses the system store. */
  ca?: string | Buffer;
  allowPrivate?: boolean;
  /** A development server (plain http:// to loopback for test-mode events); default from BASE_URL (ssrf.ts). */
  localHttp?: boolean;
  /** Per-attempt budget; 10 s in production, scaled down by tests. */
  timeoutMs?: number;
};

/** `permanent`: refused for a reason no retry can change (the URL itself, or a live event to plain http://). */
type SendResult = { statusCode?: number; body?: string; error?: string; permanent?: boolean; latencyMs: number };

/**
 * How an attempt may go out. `localHttp`: this is a development server (ssrf.ts isLocalDevelopment), so a URL of
 * plain http:// to loopback is accepted; `testMode`: the event is of a test-mode verification (or a test event),
 * the only kind such a URL is sent.
 */
type SendOpts = {
  ca?: string | Buffer;
  allowPrivate: boolean;
  localHttp?: boolean;
  testMode?: boolean;
  timeoutMs?: number;
  resolver?: Resolver;
};

/** Said after a TLS error a receiver's own certificate causes: how this server comes to trust it. */
const SELF_SIGNED_HINT =
  'trust its certificate by starting the server with NODE_EXTRA_CA_CERTS=/path/to/cert.pem (docs/webhooks.md)';

/** One HTTPS POST: no redirects followed, 10 s budget, the resolved address checked at connect time. */
type Resolver = (host: string, cb: (err: Error | null, addresses: dns.LookupAddress[]) => void) => void;
const systemResolver: Resolver = (host, cb) =>
  dns.lookup(host, { all: true }, (err, a) => cb(err, (a ?? []) as dns.LookupAddress[]));

export function sendOnce(
  url: string,
  body: string,
  headers: Record<string, string>,
  opts: SendOpts,
): Promise<SendResult> {
  // Inside a trace, the attempt is a CLIENT span (OpenTelemetry HTTP conventions). The URL is shown without its
  // query and credentials: a receiver's URL may carry a secret of its own there.
  let target: URL | null = null;
  try {
    target = new URL(url);
  } catch {
    /* refused below */
  }
  const attributes = target
    ? {
        'http.request.method': 'POST',
        'server.address': target.hostname,
        'server.port': Number(target.port || (target.protocol === 'https:' ? 443 : 80)),
        'url.full': `${target.protocol}//${target.host}${target.pathname}`,
      }
    : { 'http.request.method': 'POST' };
  return inSpan('POST', { kind: SpanKind.CLIENT, attributes }, async (span) => {
    const r = await post(url, body, headers, opts);
    if (r.statusCode !== undefined) span?.setAttribute('http.response.status_code', r.statusCode);
    const failed = r.error
      ? r.error.startsWith('refused')
        ? 'refused'
        : /^timeout/.test(r.error)
          ? 'timeout'
          : 'network_error'
      : r.statusCode! >= 400
        ? String(r.statusCode)
        : null;
    if (failed) {
      span?.setAttribute('error.type', failed);
      span?.setStatus({ code: SpanStatusCode.ERROR });
    }
    return r;
  });
}

function post(url: string, body: string, headers: Record<string, string>, opts: SendOpts): Promise<SendResult> {
  const timeoutMs = opts.timeoutMs ?? TIMEOUT_MS;
  const started = performance.now();
  const done = (r: Omit<SendResult, 'latencyMs'>): SendResult => ({
    ...r,
    latencyMs: Math.round(performance.now() - started),
  });
  const localHttp = opts.localHttp ?? isLocalDevelopment();
  const problem = webhookUrlProblem(url, opts.allowPrivate, localHttp);
  if (problem) return Promise.resolve(done({ error: `refused: ${problem}`, permanent: true }));
  // Plain http:// to loopback (a development server): test-mode events only, and the socket must reach loopback.
  const plain = isLocalHttpUrl(url);
  if (plain && !opts.testMode) {
    return Promise.resolve(
      done({
        error:
          'refused: live-mode events are delivered only to https:// URLs; plain http:// to localhost is for test-mode events on a development server',
        permanent: true,
      }),
    );
  }
  const rule: PeerRule = plain ? 'loopback' : opts.allowPrivate ? 'any' : 'public';
  const lookup = checkedLookup(opts.resolver ?? systemResolver, rule);
  const send = plain ? http.request : https.request;
  return new Promise((resolve) => {
    const req = send(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': Buffer.byteLength(body) },
        lookup,
        ...(plain ? {} : { ca: opts.ca }),
        timeout: timeoutMs,
        agent: false,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          if (text.length < BODY_KEEP) text += d;
        });
        res.on('end', () => resolve(done({ statusCode: res.statusCode, body: text.slice(0, BODY_KEEP) })));
        res.on('error', (e) => resolve(done({ statusCode: res.statusCode, error: e.message })));
      },
    );
    // At connect time, whatever the URL said and however it was resolved (IP literals never go through
    // lookup): the peer the socket reached is checked against the same table before a byte is sent.
    req.on('socket', (socket) => guardPeer(socket, rule, (e) => req.destroy(e)));
    const timeout = () => req.destroy(new Error(`timeout after ${timeoutMs} ms`));
    const timer = setTimeout(timeout, timeoutMs);
    req.on('timeout', timeout);
    req.on('error', (e) =>
      resolve(done({ error: /certificate/i.test(e.message) ? `${e.message}: ${SELF_SIGNED_HINT}` : e.message })),
    );
    req.on('close', () => clearTimeout(timer));
    req.end(body);
  });
}

/**
 * Every address a name resolves to is checked (one forbidden answer refuses the name: DNS rebinding), and the
 * socket connects to the very answer that was checked: the name is resolved once per attempt, here, so a DNS
 * server that answers differently the second time is never asked a second time (lib/domain/webhooks/ssrf.int.test.ts).
 */
/** Where the socket may go: a public address, any (WEBHOOK_ALLOW_PRIVATE_TARGETS=1), or loopback only (plain http://). */
type PeerRule = 'public' | 'any' | 'loopback';
function peerProblem(address: string, rule: PeerRule): string | null {
  if (rule === 'any') return null;
  if (rule === 'loopback') return isLoopbackHost(address) ? null : 'plain http:// is delivered to loopback only';
  const problem = addressProblem(address);
  return problem ? `${problem}; ${PRIVATE_TARGETS_HINT}` : null;
}

function checkedLookup(resolver: Resolver, rule: PeerRule): net.LookupFunction {
  return (hostname, options, cb) => {
    resolver(hostname, (err, list) => {
      if (err) return cb(err, '', 4);
      if (list.length === 0)
        return cb(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 4);
      const bad = list.find((a) => peerProblem(a.address, rule) !== null);
      if (bad)
        return cb(
          Object.assign(
            new Error(`refused: ${hostname} resolves to ${bad.address} (${peerProblem(bad.address, rule)})`),
            { code: 'EFORBIDDEN' },
          ),
          '',
          4,
        );
      if ((options as { all?: boolean }).all)
        return (cb as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      cb(null, list[0].address, list[0].family);
    });
  };
}

/**
 * The connect-time check: when the socket connects, the peer it reached is checked against the address
 * table, and the request is destroyed before a byte of it is sent if the peer is not allowed.
 */
export function guardPeer(socket: net.Socket, rule: PeerRule | boolean, refuse: (e: Error) => void) {
  const r: PeerRule = rule === true ? 'any' : rule === false ? 'public' : rule;
  socket.once('connect', () => {
    const peer = socket.remoteAddress ?? '';
    const problem = peerProblem(peer, r);
    if (problem) refuse(Object.assign(new Error(`refused: connected to ${peer} (${problem})`), { code: 'EFORBIDDEN' }));
  });
}

/** The headers of a webhook, signed now with `key` over `{timestamp}.{body}` (docs/webhooks.md). */
export function signedHeaders(
  apiKey: string,
  key: { id: string; secretCiphertext: string },
  body: string,
  eventId: string,
  now = Date.now(),
): Record<string, string> {
  const timestamp = Math.floor(now / 1000);
  return {
    'content-type': 'application/json',
    'x-auth-client': apiKey,
    'x-hmac-signature': hmacSha256Hex(revealSecret(key), [`${timestamp}.`, body]),
    'x-timestamp': String(timestamp),
    'x-webhook-id': eventId,
    'user-agent': 'open-verify-webhooks/1',
  };
}

/** The workspace's active key (it signs every webhook), or undefined when none is. */
export async function activeKey(db: DbOrTx, workspaceId: string) {
  const [key] = await db
    .select()
    .from(secretKeys)
    .where(and(eq(secretKeys.workspaceId, workspaceId), eq(secretKeys.isActive, true), isNull(secretKeys.deletedAt)));
  return key;
}

/** 2xx done; 408, 429, 5xx, 3xx (redirects are not followed), timeouts and network errors retried; other 4xx completed. */
export function classify(r: SendResult): 'delivered' | 'retry' | 'completed' {
  const s = r.statusCode;
  if (s === undefined) return 'retry';
  if (s >= 200 && s < 300) return 'delivered';
  if (s === 408 || s === 429 || s >= 500 || (s >= 300 && s < 400)) return 'retry';
  return 'completed';
}

/** Claims due events (leasing them) and delivers one attempt each. Returns how many were attempted. */
export async function deliverDueWebhooks(deps: DeliverDeps, limit = 20): Promise<number> {
  const now = deps.now?.() ?? new Date();
  const claimed = await deps.db.transaction(async (tx) => {
    const due = await tx
      .select({ id: webhookEvents.id })
      .from(webhookEvents)
      .where(
        and(
          eq(webhookEvents.state, 'pending'),
          lte(webhookEvents.nextAttemptAt, now),
          or(isNull(webhookEvents.leaseUntil), lt(webhookEvents.leaseUntil, now)),
        ),
      )
      .orderBy(asc(webhookEvents.nextAttemptAt))
      .limit(limit)
      .for('update', { skipLocked: true });
    if (due.length === 0) return [];
    return tx
      .update(webhookEvents)
      .set({ leaseUntil: new Date(now.getTime() + LEASE_MS), updatedAt: now })
      .where(
        inArray(
          webhookEvents.id,
          due.map((d) => d.id),
        ),
      )
      .returning();
  });
  await Promise.all(claimed.map((e) => attempt(deps, e, now)));
  return claimed.length;
}

export type EventProgress = { state: WebhookEventRow['state']; attempts: number; nextAttemptAt: Date } | null;

/**
 * One event: its next attempt, if it is due and nobody else holds it (a conditional update claims it, so of
 * two runners exactly one sends). Returns where the event stands afterwards, so a caller can come back when
 * the next attempt is due (Inngest sleeps until then); null for an unknown event.
 */
export async function deliverWebhookEvent(deps: DeliverDeps, eventId: string): Promise<EventProgress> {
  const now = deps.now?.() ?? new Date();
  const [claimed] = await deps.db
    .update(webhookEvents)
    .set({ leaseUntil: new Date(now.getTime() + LEASE_MS), updatedAt: now })
    .where(
      and(
        eq(webhookEvents.id, eventId),
        eq(webhookEvents.state, 'pending'),
        lte(webhookEvents.nextAttemptAt, now),
        or(isNull(webhookEvents.leaseUntil), lt(webhookEvents.leaseUntil, now)),
      ),
    )
    .returning();
  if (claimed) await attempt(deps, claimed, now);
  const [e] = await deps.db
    .select({
      state: webhookEvents.state,
      attempts: webhookEvents.attempts,
      nextAttemptAt: webhookEvents.nextAttemptAt,
      leaseUntil: webhookEvents.leaseUntil,
    })
    .from(webhookEvents)
    .where(eq(webhookEvents.id, eventId));
  if (!e) return null;
  // Held by another runner: come back when its lease ends (it records the attempt, or its lease runs out).
  const next = e.leaseUntil && e.leaseUntil > e.nextAttemptAt ? e.leaseUntil : e.nextAttemptAt;
  return { state: e.state, attempts: e.attempts, nextAttemptAt: next };
}

type WebhookEventRow = typeof webhookEvents.$inferSelect;

/**
 * One attempt of a claimed event, in the trace of the change that wrote it (its row's traceparent): the span
 * `deliver-webhook` with the request's CLIENT span in it. Counted in `webhook_attempts_total{outcome}`, its time in
 * `webhook_attempt_duration_seconds`, and a delivery's time since the event in `webhook_delivery_seconds`.
 */
function attempt(deps: DeliverDeps, e: WebhookEventRow, now: Date) {
  const attributes = {
    'open_verify.job': 'deliver-webhook',
    'open_verify.webhook_event_id': e.id,
    'open_verify.attempt': e.attempts + 1,
  };
  return inJobSpan('deliver-webhook', e.traceparent, attributes, async (span) => {
    const outcome = await attemptOnce(deps, e, now);
    span?.setAttribute('open_verify.outcome', outcome);
  });
}

/** One attempt: skipped without a URL; otherwise signed, sent, recorded and counted. */
async function attemptOnce(
  deps: DeliverDeps,
  e: WebhookEventRow,
  now: Date,
): Promise<(typeof WEBHOOK_OUTCOMES)[number]> {
  const [ws] = await deps.db.select().from(workspaces).where(eq(workspaces.id, e.workspaceId));
  if (!ws.webhookUrl) {
    await deps.db
      .update(webhookEvents)
      .set({ state: 'skipped', leaseUntil: null, updatedAt: now })
      .where(eq(webhookEvents.id, e.id));
    metrics().webhookAttempts.inc({ outcome: 'skipped' });
    return 'skipped';
  }
  const sent = await signAndSend(deps, e, { ...ws, webhookUrl: ws.webhookUrl });
  const n = e.attempts + 1;
  let outcome: AttemptOutcome = classify(sent.result);
  // Refused for a reason a retry cannot change: failed now, with that reason in the log, not retried in vain.
  if (sent.result.permanent || (outcome === 'retry' && n >= MAX_ATTEMPTS)) outcome = 'failed';
  const after = deps.now?.() ?? new Date();
  await recordAttempt(deps, e, { ...sent, url: ws.webhookUrl, n, outcome, after });
  if (outcome !== 'delivered')
    log.info('webhook attempt', {
      event: e.id,
      attempt: n,
      outcome,
      status: sent.result.statusCode,
      error: sent.result.error,
    });
  countAttempt(e, outcome, sent, after);
  return outcome;
}

type AttemptOutcome = 'delivered' | 'retry' | 'completed' | 'failed';
type Sent = { key: Awaited<ReturnType<typeof activeKey>>; result: SendResult; startedAt: Date };

/**
 * Signed now, with the key active now: a retry an hour later passes the receiver's 300 s window, and a rotation
 * takes effect on the next attempt. The body as it was built, opened with the verification's data key; once the
 * data is erased, the body without the personal fields.
 */
async function signAndSend(
  deps: DeliverDeps,
  e: WebhookEventRow,
  ws: { id: string; apiKey: string; webhookUrl: string },
): Promise<Sent> {
  const key = await activeKey(deps.db, ws.id);
  const body = e.bodySealed
    ? openWebhookEvent(e, keyOpener(await dataKeyRows(deps.db, [e.verificationId]))(e.verificationId))
    : e.body;
  const startedAt = deps.now?.() ?? new Date();
  if (!key) return { key, result: { error: 'no active secret key to sign with', latencyMs: 0 }, startedAt };
  const headers = signedHeaders(ws.apiKey, key, body, e.id);
  const [v] = await deps.db
    .select({ mode: verifications.mode })
    .from(verifications)
    .where(eq(verifications.id, e.verificationId));
  const result = await sendOnce(ws.webhookUrl, body, headers, {
    ca: deps.ca,
    allowPrivate: deps.allowPrivate ?? allowPrivateTargets(),
    localHttp: deps.localHttp,
    testMode: v?.mode === 'test',
    timeoutMs: deps.timeoutMs,
  });
  return { key, result, startedAt };
}

/** The attempt's row, and the event's next state: pending again after its delay (a retry), or final. */
async function recordAttempt(
  deps: DeliverDeps,
  e: WebhookEventRow,
  a: Sent & { url: string; n: number; outcome: AttemptOutcome; after: Date },
): Promise<void> {
  const delays = deps.delays ?? env().WEBHOOK_RETRY_DELAYS;
  await deps.db.transaction(async (tx) => {
    const attemptId = newId('wat');
    // The log numbers an event's attempts from its first, across redeliveries (a.n counts this schedule's).
    const [{ last }] = await tx
      .select({ last: max(webhookAttempts.attempt) })
      .from(webhookAttempts)
      .where(eq(webhookAttempts.eventId, e.id));
    await tx.insert(webhookAttempts).values({
      id: attemptId,
      eventId: e.id,
      attempt: (last ?? 0) + 1,
      url: a.url,
      keyId: a.key?.id ?? null,
      startedAt: a.startedAt,
      latencyMs: a.result.latencyMs,
      statusCode: a.result.statusCode ?? null,
      // The receiver's answer may echo the body: kept only under the verification's data key.
      responseSealed: await sealResponse(tx, e.verificationId, attemptId, a.result.body),
      error: a.result.error ?? null,
      outcome: a.outcome,
    });
    await tx
      .update(webhookEvents)
      .set({
        attempts: a.n,
        state: a.outcome === 'retry' ? 'pending' : a.outcome,
        nextAttemptAt: a.outcome === 'retry' ? new Date(a.after.getTime() + delays[a.n - 1] * 1000) : a.after,
        leaseUntil: null,
        updatedAt: a.after,
      })
      .where(eq(webhookEvents.id, e.id));
  });
}

function countAttempt(e: WebhookEventRow, outcome: AttemptOutcome, sent: Sent, after: Date): void {
  const m = metrics();
  m.webhookAttempts.inc({ outcome });
  if (sent.key) m.webhookAttemptDuration.observe({ outcome }, sent.result.latencyMs / 1000);
  if (outcome === 'delivered') m.webhookDelivery.observe(Math.max(0, (after.getTime() - e.createdAt.getTime()) / 1000));
}

/** A receiver's answer under the verification's data key (none after its erasure: the answer is dropped). */
async function sealResponse(
  tx: DbOrTx,
  verificationId: string,
  attemptId: string,
  text: string | undefined,
): Promise<Buffer | null> {
  if (text === undefined) return null;
  try {
    return sealText(await ensureDataKey(tx, verificationId), AAD.webhookResponse(attemptId), text);
  } catch (err) {
    if (err instanceof DataKeyDestroyedError) return null;
    throw err;
  }
}

const traceparentNow = () => {
  const traceparent = currentTraceparent();
  return traceparent ? { traceparent } : {};
};

/**
 * A fresh attempt of an event (same id): back to pending, due now, with a fresh retry schedule (its count of
 * scheduled attempts reset); the delivery log goes on numbering where it stopped.
 */
export async function redeliverWebhook(db: Db, eventId: string) {
  const [e] = await db
    .update(webhookEvents)
    // Sent again from here: its attempts join this trace (an operator's request), when tracing is on.
    .set({
      state: 'pending',
      attempts: 0,
      nextAttemptAt: new Date(),
      leaseUntil: null,
      updatedAt: new Date(),
      ...traceparentNow(),
    })
    .where(eq(webhookEvents.id, eventId))
    .returning();
  if (e) await announce('webhook/enqueued', { eventId: e.id });
  return e;
}

/**
 * Every failed event of a workspace sent again (each keeps its X-Webhook-Id), at most `limit` at a time,
 * oldest first. Returns how many were queued.
 */
export async function redeliverFailedWebhooks(db: Db, workspaceId: string, limit = 500): Promise<number> {
  const failed = await db
    .select({ id: webhookEvents.id })
    .from(webhookEvents)
    .where(and(eq(webhookEvents.workspaceId, workspaceId), eq(webhookEvents.state, 'failed')))
    .orderBy(asc(webhookEvents.createdAt))
    .limit(limit);
  for (const e of failed) await redeliverWebhook(db, e.id);
  return failed.length;
}

/** The header that marks a test event (docs/webhooks.md "Test events"): receivers can tell it from a real one. */
const TEST_EVENT_HEADER = 'x-webhook-test';

/**
 * A sample event sent now to the workspace's webhook URL, signed with its active key exactly like a real one,
 * with `X-Webhook-Test: true`. Sent once, at once (no retries, not in the outbox): the answer is returned.
 */
export async function sendTestWebhook(
  db: DbOrTx,
  workspaceId: string,
  deps: Pick<DeliverDeps, 'ca' | 'allowPrivate' | 'localHttp' | 'timeoutMs'> = {},
) {
  const [ws] = await db.select().from(workspaces).where(eq(workspaces.id, workspaceId));
  if (!ws) throw new DomainError('NOT_FOUND', 'Workspace not found.');
  if (!ws.webhookUrl)
    throw new DomainError('VALIDATION_ERROR', 'Set a webhook URL first.', {
      fields: { webhook_url: ['Required to send a test event.'] },
    });
  const key = await activeKey(db, ws.id);
  if (!key)
    throw new DomainError('NO_SECRET_KEYS', 'The workspace has no active key to sign with: activate one first.');
  const now = new Date();
  const body = JSON.stringify({
    verification_id: uuidv7(now.getTime()),
    status: 'approved',
    external_id: 'open-verify-test-event',
    external_metadata: { test: true },
    reason: null,
    timestamp: now.toISOString(),
    duplicate_detected: false,
    duplicate_count: 0,
  });
  const id = newId('evt');
  const headers = { ...signedHeaders(ws.apiKey, key, body, id, now.getTime()), [TEST_EVENT_HEADER]: 'true' };
  // A sample, not a live decision: sent like a test-mode event (so a development server's http://localhost receiver gets it).
  const r = await sendOnce(ws.webhookUrl, body, headers, {
    ca: deps.ca,
    allowPrivate: deps.allowPrivate ?? allowPrivateTargets(),
    localHttp: deps.localHttp,
    testMode: true,
    timeoutMs: deps.timeoutMs,
  });
  return {
    id,
    url: ws.webhookUrl,
    keyId: key.id,
    body,
    outcome: classify(r),
    statusCode: r.statusCode ?? null,
    latencyMs: r.latencyMs,
    responseBody: r.body ?? null,
    error: r.error ?? null,
  };
}

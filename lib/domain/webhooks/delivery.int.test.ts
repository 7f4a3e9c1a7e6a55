/**
 * Webhook delivery end to end: a real HTTPS receiver (self-signed certificate, trusted for the test),
 * every signature checked by an independent implementation, the retry schedule scaled down.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resetEnvCache } from '@/lib/core/env';
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { eq } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { verifications, webhookAttempts, webhookEvents } from '@/lib/db/schema';
import { makeWorkspace, type TestWorkspace } from '@/test/helpers/factories';
import { selfSignedCert, startReceiver, type Received } from '@/test/helpers/https-receiver';
import { createVerification } from '@/lib/domain/verifications/create';
import { transitionWithWebhook } from '@/test/helpers/transitions';
import { activateSecretKey, createSecretKey } from '@/lib/domain/auth/keys';
import { updateWorkspaceSettings } from '@/lib/domain/workspaces';
import { deliverDueWebhooks, deliverWebhookEvent, redeliverWebhook, sendOnce, type DeliverDeps } from './deliver';

const DELAYS = [0.15, 0.3, 0.6]; // seconds: the 5/15/60-minute schedule, scaled

/** The receiver's side, written from docs/webhooks.md alone: HMAC-SHA256 of `${timestamp}.${rawBody}`. */
function verifyAsReceiver(r: Received, secret: string): boolean {
  const ts = Number(r.headers['x-timestamp']);
  if (!Number.isInteger(ts) || Math.abs(Date.now() / 1000 - ts) >= 300) return false;
  const expected = createHmac('sha256', secret).update(`${ts}.${r.body}`).digest();
  const got = Buffer.from(String(r.headers['x-hmac-signature']), 'hex');
  return got.length === expected.length && timingSafeEqual(got, expected);
}

describe('webhook delivery', () => {
  const tls = selfSignedCert();
  let deps: DeliverDeps;

  beforeAll(() => {
    // The receiver is on loopback: allowed only with the operator setting meant for tests and demos.
    process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = '1';
    resetEnvCache();
    deps = { db: getDb(), delays: DELAYS, ca: tls.cert, allowPrivate: true, timeoutMs: 500 };
  });

  /** An approved verification (review → approved by an admin), which writes one webhook event. */
  async function decided(w: TestWorkspace, url: string, keyMode: 'test' | 'live' = 'test') {
    await updateWorkspaceSettings(getDb(), w.workspace.id, { webhook_url: url });
    const { row } = await createVerification(getDb(), {
      workspace: w.workspace,
      keyMode,
      fields: { external_id: 'user/é-1', external_metadata: { plan: 'pro', url: 'https://x/y' } },
      actor: `key:${w.testKeyId}`,
    });
    await getDb().update(verifications).set({ status: 'review' }).where(eq(verifications.id, row.id));
    await transitionWithWebhook(getDb(), { verificationId: row.id, trigger: 'admin_approve' });
    const [e] = await getDb().select().from(webhookEvents).where(eq(webhookEvents.verificationId, row.id));
    return { verificationId: row.id, eventId: e.id };
  }

  /** Runs the deliverer until the event is final. */
  async function drain(eventId: string, maxMs = 8000) {
    const until = Date.now() + maxMs;
    for (;;) {
      await deliverDueWebhooks(deps);
      const [e] = await getDb().select().from(webhookEvents).where(eq(webhookEvents.id, eventId));
      if (e.state !== 'pending' || Date.now() > until) {
        const attempts = await getDb()
          .select()
          .from(webhookAttempts)
          .where(eq(webhookAttempts.eventId, eventId))
          .orderBy(webhookAttempts.attempt);
        return { event: e, attempts };
      }
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  it('a decision is delivered once, signed, with the payload and headers of docs/webhooks.md', async () => {
    const w = await makeWorkspace();
    const rx = await startReceiver(tls);
    try {
      const { verificationId, eventId } = await decided(w, rx.url);
      const { event, attempts } = await drain(eventId);
      expect([event.state, attempts.length, rx.received.length]).toEqual(['delivered', 1, 1]);
      const r = rx.received[0];
      expect(verifyAsReceiver(r, w.liveSecret)).toBe(true); // the active key (live) signs
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers['x-auth-client']).toBe(w.apiKey);
      expect(r.headers['x-webhook-id']).toBe(eventId);
      expect(r.headers['x-hmac-signature']).toMatch(/^[0-9a-f]{64}$/);
      // Canonical JSON: table order, unescaped slashes and unicode, no whitespace.
      expect(Object.keys(JSON.parse(r.body))).toEqual([
        'verification_id',
        'status',
        'external_id',
        'external_metadata',
        'reason',
        'timestamp',
        'duplicate_detected',
        'duplicate_count',
      ]);
      expect(r.body).toContain('"external_id":"user/é-1"');
      expect(r.body).toContain('"url":"https://x/y"');
      expect(JSON.parse(r.body)).toMatchObject({
        verification_id: verificationId,
        status: 'approved',
        reason: null,
        external_metadata: { plan: 'pro' },
        duplicate_detected: false,
      });
    } finally {
      await rx.close();
    }
  });

  it('500, 500, 500, 200: four attempts on the (scaled) schedule, same X-Webhook-Id, each signed', async () => {
    const w = await makeWorkspace();
    const rx = await startReceiver(tls, [{ status: 500 }, { status: 500 }, { status: 500 }, { status: 200 }]);
    try {
      const { eventId } = await decided(w, rx.url);
      const { event, attempts } = await drain(eventId);
      expect([event.state, attempts.map((a) => a.statusCode)]).toEqual(['delivered', [500, 500, 500, 200]]);
      expect(new Set(rx.received.map((r) => r.headers['x-webhook-id']))).toEqual(new Set([eventId]));
      for (const r of rx.received) expect(verifyAsReceiver(r, w.liveSecret)).toBe(true);
      const gaps = rx.received.slice(1).map((r, i) => (r.at - rx.received[i].at) / 1000);
      gaps.forEach((g, i) => expect(g).toBeGreaterThanOrEqual(DELAYS[i] - 0.02));
    } finally {
      await rx.close();
    }
  });

  it('400: one attempt, completed, not retried', async () => {
    const w = await makeWorkspace();
    const rx = await startReceiver(tls, [{ status: 400 }]);
    try {
      const { eventId } = await decided(w, rx.url);
      const { event, attempts } = await drain(eventId);
      await new Promise((r) => setTimeout(r, 400));
      await deliverDueWebhooks(deps);
      expect([event.state, attempts.length, rx.received.length]).toEqual(['completed', 1, 1]);
    } finally {
      await rx.close();
    }
  });

  it('408 and 429 are retried', async () => {
    const w = await makeWorkspace();
    const rx = await startReceiver(tls, [{ status: 408 }, { status: 429 }, { status: 204 }]);
    try {
      const { eventId } = await decided(w, rx.url);
      const { event, attempts } = await drain(eventId);
      expect([event.state, attempts.map((a) => a.outcome)]).toEqual(['delivered', ['retry', 'retry', 'delivered']]);
    } finally {
      await rx.close();
    }
  });

  it('a timeout is retried, and recorded as such', async () => {
    const w = await makeWorkspace();
    const rx = await startReceiver(tls, [{ status: 200, delayMs: 1500 }, { status: 200 }]);
    try {
      const { eventId } = await decided(w, rx.url);
      const { event, attempts } = await drain(eventId);
      expect(event.state).toBe('delivered');
      expect(attempts[0]).toMatchObject({ outcome: 'retry', statusCode: null });
      expect(attempts[0].error).toMatch(/timeout/);
    } finally {
      await rx.close();
    }
  });

  it('a redirect is not followed: a failure, retried, and failed after 4', async () => {
    const w = await makeWorkspace();
    const target = await startReceiver(tls);
    const rx = await startReceiver(tls, [{ status: 302, headers: { location: target.url } }]);
    try {
      const { eventId } = await decided(w, rx.url);
      const { event, attempts } = await drain(eventId);
      expect([event.state, attempts.map((a) => a.statusCode)]).toEqual(['failed', [302, 302, 302, 302]]);
      expect(target.received).toHaveLength(0);
    } finally {
      await rx.close();
      await target.close();
    }
  });

  it('a receiver down for all 4 attempts: failed, every attempt recorded with its error', async () => {
    const w = await makeWorkspace();
    const port = await new Promise<number>((r) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as net.AddressInfo).port;
        s.close(() => r(p));
      });
    });
    const { eventId } = await decided(w, `https://127.0.0.1:${port}/hook`);
    const { event, attempts } = await drain(eventId);
    expect([event.state, attempts.length]).toEqual(['failed', 4]);
    for (const a of attempts) expect(a.error).toMatch(/ECONNREFUSED/);
  });

  it('a key rotation between attempts: the next attempt is signed with the newly active key', async () => {
    const w = await makeWorkspace();
    const rx = await startReceiver(tls, [{ status: 503 }, { status: 200 }]);
    try {
      const { eventId } = await decided(w, rx.url);
      await deliverDueWebhooks(deps); // attempt 1, signed with the live key
      const k2 = await createSecretKey(getDb(), { workspaceId: w.workspace.id, mode: 'live' });
      await activateSecretKey(getDb(), k2.id);
      const { event } = await drain(eventId);
      expect(event.state).toBe('delivered');
      expect(verifyAsReceiver(rx.received[0], w.liveSecret)).toBe(true);
      expect(verifyAsReceiver(rx.received[1], k2.secret)).toBe(true);
      expect(verifyAsReceiver(rx.received[1], w.liveSecret)).toBe(false);
    } finally {
      await rx.close();
    }
  });

  it('refuses http:// and private addresses unless allowed, before connecting', async () => {
    expect((await sendOnce('http://127.0.0.1:1/x', '{}', {}, { allowPrivate: true })).error).toMatch(/https/);
    expect((await sendOnce('https://127.0.0.1:1/x', '{}', {}, { allowPrivate: false })).error).toMatch(/refused/);
    expect((await sendOnce('https://localhost:1/x', '{}', {}, { allowPrivate: false })).error).toMatch(/refused/);
  });

  it('checks the resolved address at connect time: a public name that resolves to a private address is refused', async () => {
    // DNS is the one thing stood in for here: the name answers with an internal address.
    const resolver = (_host: string, cb: (e: null, a: { address: string; family: number }[]) => void) =>
      cb(null, [{ address: '10.0.0.5', family: 4 }]);
    const r = await sendOnce('https://hooks.example.com/x', '{}', {}, { allowPrivate: false, resolver });
    expect(r.error).toMatch(/refused: hooks\.example\.com resolves to 10\.0\.0\.5/);
    const mapped = (_h: string, cb: (e: null, a: { address: string; family: number }[]) => void) =>
      cb(null, [{ address: '::ffff:169.254.169.254', family: 6 }]);
    expect(
      (await sendOnce('https://hooks.example.com/x', '{}', {}, { allowPrivate: false, resolver: mapped })).error,
    ).toMatch(/refused/);
  });

  it('redeliver: a failed event is sent again with the same id', async () => {
    const w = await makeWorkspace();
    const rx = await startReceiver(tls, [{ status: 404 }, { status: 200 }]);
    try {
      const { eventId } = await decided(w, rx.url);
      expect((await drain(eventId)).event.state).toBe('completed');
      await redeliverWebhook(getDb(), eventId);
      const { event, attempts } = await drain(eventId);
      expect(event.state).toBe('delivered');
      expect(rx.received.map((r) => r.headers['x-webhook-id'])).toEqual([eventId, eventId]);
      // The log goes on numbering: the redelivery is attempt 2, not a second attempt 1.
      expect(attempts.map((a) => [a.attempt, a.statusCode])).toEqual([
        [1, 404],
        [2, 200],
      ]);
    } finally {
      await rx.close();
    }
  });

  it('a refusal no retry can change (a loopback URL without the setting) fails the event at once, naming the setting', async () => {
    const w = await makeWorkspace();
    const { eventId } = await decided(w, 'https://127.0.0.1:1/x');
    const strict = { ...deps, allowPrivate: false };
    await deliverDueWebhooks(strict);
    const [event] = await getDb().select().from(webhookEvents).where(eq(webhookEvents.id, eventId));
    const attempts = await getDb().select().from(webhookAttempts).where(eq(webhookAttempts.eventId, eventId));
    expect([event.state, attempts.length, attempts[0].outcome]).toEqual(['failed', 1, 'failed']);
    expect(attempts[0].error).toBe(
      'refused: the address 127.0.0.1 is not a public unicast address (loopback); a receiver on your own machine or network needs WEBHOOK_ALLOW_PRIVATE_TARGETS=1 in the environment of both the server (npm run dev / npm start) and npm run ops',
    );
  });

  it('a development server sends a test-mode event to a plain http://127.0.0.1 receiver; a live-mode one is failed at once', async () => {
    const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        res.end('ok');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/webhooks/verify`;
    // The workspace setting accepts the URL on a development server only (its BASE_URL http://localhost…).
    const base = process.env.BASE_URL;
    process.env.BASE_URL = 'http://localhost:3000';
    resetEnvCache();
    try {
      const local = { ...deps, allowPrivate: false, localHttp: true };
      const w = await makeWorkspace();
      const test = await decided(w, url, 'test');
      await deliverDueWebhooks(local);
      const [e] = await getDb().select().from(webhookEvents).where(eq(webhookEvents.id, test.eventId));
      expect([e.state, received.length]).toEqual(['delivered', 1]);
      expect(verifyAsReceiver({ headers: received[0].headers, body: received[0].body, at: 0 }, w.liveSecret)).toBe(
        true,
      );

      const live = await decided(w, url, 'live');
      await deliverDueWebhooks(local);
      const [l] = await getDb().select().from(webhookEvents).where(eq(webhookEvents.id, live.eventId));
      const [a] = await getDb().select().from(webhookAttempts).where(eq(webhookAttempts.eventId, live.eventId));
      expect([l.state, received.length, a.error]).toEqual([
        'failed',
        1,
        'refused: live-mode events are delivered only to https:// URLs; plain http:// to localhost is for test-mode events on a development server',
      ]);

      // A production server (BASE_URL https://…): the test-mode event is refused too, and failed at once.
      const prod = await decided(w, url, 'test');
      await deliverDueWebhooks({ ...local, localHttp: false });
      const [p] = await getDb().select().from(webhookEvents).where(eq(webhookEvents.id, prod.eventId));
      expect([p.state, received.length]).toEqual(['failed', 1]);
    } finally {
      process.env.BASE_URL = base;
      resetEnvCache();
      server.close();
    }
  });

  it('one attempt however it is started: the cron sweep and the event job on another server send an event once', async () => {
    const rx = await startReceiver(tls, [{ status: 200, delayMs: 300 }]);
    try {
      const w = await makeWorkspace();
      const { eventId } = await decided(w, rx.url);
      // The sweep holds the event (its lease) while the receiver is slow; the event job meanwhile finds it held.
      const [swept, job] = await Promise.all([
        deliverDueWebhooks(deps),
        new Promise((r) => setTimeout(r, 100)).then(() => deliverWebhookEvent(deps, eventId)),
      ]);
      expect(swept).toBeGreaterThanOrEqual(1);
      // The job was told to come back when the lease ends, not at once.
      expect(job!.state === 'delivered' || job!.nextAttemptAt.getTime() > Date.now()).toBe(true);
      await deliverWebhookEvent(deps, eventId);
      expect(rx.received.filter((r) => r.headers['x-webhook-id'] === eventId)).toHaveLength(1);
      expect(await getDb().select().from(webhookAttempts).where(eq(webhookAttempts.eventId, eventId))).toHaveLength(1);
    } finally {
      await rx.close();
    }
  });

  it('an event of a workspace with no webhook URL is skipped', async () => {
    const w = await makeWorkspace();
    const { row } = await createVerification(getDb(), {
      workspace: w.workspace,
      keyMode: 'test',
      fields: {},
      actor: `key:${w.testKeyId}`,
    });
    await getDb().update(verifications).set({ status: 'review' }).where(eq(verifications.id, row.id));
    await transitionWithWebhook(getDb(), { verificationId: row.id, trigger: 'admin_decline' });
    const [e] = await getDb().select().from(webhookEvents).where(eq(webhookEvents.verificationId, row.id));
    const { event } = await drain(e.id);
    expect(event.state).toBe('skipped');
  });

  afterAll(() => {
    delete process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS;
    resetEnvCache();
  });
});

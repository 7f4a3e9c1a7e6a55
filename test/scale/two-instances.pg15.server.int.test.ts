/**
 * Two production servers on one PostgreSQL 15 (docs/deploy.md "Several instances"): Debian's server, the real
 * launcher twice with the same DATABASE_URL and ENCRYPTION_KEY, each with its in-process runner, behind a
 * round-robin "load balancer" (every request of a client goes to the next instance, as a balancer without
 * sticky sessions sends it). Shown:
 *  - 200 live verifications (create, consent, selfie upload, submit) are each decided exactly once and each
 *    webhook delivered exactly once to a real HTTPS receiver, signed;
 *  - the 60-a-minute rate limit is one count over both instances;
 *  - SIGKILL of one instance mid-load loses nothing: the other takes over its jobs when their leases end, and
 *    every submitted verification reaches its decision and its webhook, once.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import postgres from 'postgres';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signJsonRequest, signMultipartRequest } from '@/lib/domain/auth/sign';
import type { Received, startReceiver } from '@/test/helpers/https-receiver';
import * as I from '@/test/helpers/images';
import { kill } from '@/test/helpers/server';
import {
  expectEnvelope,
  makeWorkspace,
  raw,
  sharedPg15,
  startService,
  waitFor,
  type RawResponse,
  type Service,
} from '../security/harness';

type Ws = ReturnType<typeof makeWorkspace>;
const LEASE_MS = 15_000; // PIPELINE_LEASE_MS's default: the lease a dead instance's job is held for

/** The receiver's side of docs/webhooks.md: HMAC-SHA256 of `${timestamp}.${body}` with the active (live) key. */
function signedBy(r: Received, secret: string) {
  const expected = createHmac('sha256', secret).update(`${r.headers['x-timestamp']}.${r.body}`).digest();
  const got = Buffer.from(String(r.headers['x-hmac-signature']), 'hex');
  return got.length === expected.length && timingSafeEqual(got, expected);
}

describe('two instances on one PostgreSQL 15', () => {
  let sql: postgres.Sql;
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  let shared: Awaited<ReturnType<typeof sharedPg15>> | undefined;
  let a: Service;
  let b: Service;
  /** Small real faces (the packaged photos, 400 px): each verification's selfie a different crop of one. */
  let faces: Buffer[] = [];

  beforeAll(async () => {
    shared = await sharedPg15();
    ({ sql, rx } = shared);
    [a, b] = await Promise.all([startService(shared.env), startService(shared.env)]);
    faces = [
      await sharp(I.astronaut()).resize(400, 400).jpeg({ quality: 90 }).toBuffer(),
      await sharp(I.graceHopper()).resize(400, 480, { fit: 'cover', position: 'top' }).jpeg({ quality: 90 }).toBuffer(),
    ];
  }, 300_000);
  afterAll(async () => {
    for (const s of [a, b]) await s?.cleanup().catch(() => {});
    await shared?.stop();
  });

  /** The i-th of `images`: a crop a few pixels off from the others, so no two verifications send the same bytes. */
  const nth = async (images: Buffer[], i: number) => {
    const img = images[i % images.length];
    const { width, height } = await sharp(img).metadata();
    const dx = Math.floor(i / 2) % 12;
    const dy = Math.floor(i / 24) % 12;
    return sharp(img)
      .extract({ left: dx, top: dy, width: width! - 12, height: height! - 12 })
      .jpeg({ quality: 90 })
      .toBuffer();
  };
  const selfieOnly = async (i: number): Promise<[Record<string, string>, Buffer][]> => [
    [{ type: 'selfie' }, await nth(faces, i)],
  ];

  /**
   * A client of the pair: each request goes to the next live instance; a request an instance does not answer
   * (it died) is sent again to the next one, as a client or balancer retries. Answers 503 with Retry-After (the
   * analysis queue is full) are retried after it.
   */
  function balancer(w: Ws) {
    let next = 0;
    const live = new Set<Service>([a, b]);
    const sent = new Map<Service, number>([
      [a, 0],
      [b, 0],
    ]);
    /** Which instance accepted each verification's submit. */
    const submittedVia = new Map<string, Service>();
    async function send(
      method: string,
      p: string,
      headers: Record<string, string>,
      body?: string | Buffer,
    ): Promise<RawResponse & { via: Service }> {
      for (let tries = 0; ; tries++) {
        const pool = [a, b].filter((s) => live.has(s));
        const s = pool[next++ % pool.length];
        try {
          sent.set(s, sent.get(s)! + 1);
          const r = await raw(s.server.base, method, p, headers, body);
          if (r.status === 503 && tries < 50) {
            await new Promise((res) => setTimeout(res, 1000 * Number(r.headers['retry-after'] ?? 1)));
            continue;
          }
          return { ...r, via: s };
        } catch (e) {
          if (tries >= 5) throw e;
        }
      }
    }
    const json = (method: string, p: string, body = '', extra: Record<string, string> = {}) =>
      send(
        method,
        p,
        {
          'content-type': 'application/json',
          'x-api-key': w.apiKey,
          'x-hmac-signature': signJsonRequest(w.live, method, p, body),
          ...extra,
        },
        body || undefined,
      );
    return {
      sent,
      submittedVia,
      /** The balancer stops sending to an instance (its health check failed). */
      drop: (s: Service) => live.delete(s),
      json,
      /** Create (with an Idempotency-Key, so a retried create is one verification), consent, upload, submit. */
      async verify(
        i: number,
        consent: { id: number; text_sha256: string },
        uploads: [Record<string, string>, Buffer][],
      ) {
        const created = await json('POST', '/v1/verifications', '{}', { 'idempotency-key': `two-${w.id}-${i}` });
        expect(created.status, created.text).toBe(201);
        const id = created.json.data.id as string;
        const c = await json(
          'POST',
          `/v1/verifications/${id}/consent`,
          JSON.stringify({ consent_version_id: consent.id, text_sha256: consent.text_sha256 }),
        );
        expect(c.status, c.text).toBe(200);
        for (const [fields, file] of uploads) {
          const p = `/v1/verifications/${id}/media`;
          const boundary = 'XyZtwo';
          const parts = Object.entries(fields).map(
            ([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`,
          );
          const body = Buffer.concat([
            Buffer.from(
              `${parts.join('')}--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="s.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`,
            ),
            file,
            Buffer.from(`\r\n--${boundary}--\r\n`),
          ]);
          const up = await send(
            'POST',
            p,
            {
              'content-type': `multipart/form-data; boundary=${boundary}`,
              'x-api-key': w.apiKey,
              'x-hmac-signature': signMultipartRequest(w.live, 'POST', p, Object.entries(fields), [file]),
            },
            body,
          );
          expect(up.status, up.text).toBe(201);
        }
        const sub = await json('POST', `/v1/verifications/${id}/submit`);
        // A submit whose instance died before answering is sent again: then it was either not taken (submitted
        // now) or taken (INVALID_STATUS: it is past `started`, which a read confirms).
        if (sub.status !== 200) {
          expect(expectEnvelope(sub, [409]).code).toBe('INVALID_STATUS');
          expect((await json('GET', `/v1/verifications/${id}`)).json.data.status).not.toBe('started');
        } else {
          expect(sub.json.data.status).toBe('submitted');
          submittedVia.set(id, sub.via);
        }
        return id;
      },
    };
  }

  /** Runs `n` verifications, `concurrency` at a time, calling `after(done)` as each finishes. */
  async function load(
    lb: ReturnType<typeof balancer>,
    n: number,
    concurrency: number,
    media: (i: number) => Promise<[Record<string, string>, Buffer][]>,
    after: (done: number) => void = () => {},
  ) {
    const consent = (await lb.json('GET', '/v1/consent')).json.data;
    const ids: string[] = [];
    let i = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (i < n) {
          const k = i++;
          ids[k] = await lb.verify(k, consent, await media(k));
          after(ids.filter(Boolean).length);
        }
      }),
    );
    return ids;
  }

  /**
   * Every verification decided once and its webhook delivered once: one finished pipeline job, one decision in
   * the audit log, one outbox event, delivered, received with that event's id and the verification's status,
   * signed with the live key. Returns the counts, and the receipts beyond one per event (a redelivery of an
   * event whose attempt a killed instance sent but never recorded: same X-Webhook-Id).
   */
  async function exactlyOnce(w: Ws, ids: string[], ms: number) {
    await waitFor(
      'every verification decided',
      async () =>
        (
          await sql`select count(*)::int as n from verifications where id in ${sql(ids)} and status in ('submitted', 'started', 'created')`
        )[0].n === 0,
      ms,
    );
    await waitFor(
      'every webhook delivered',
      async () =>
        (
          await sql`select count(*)::int as n from webhook_events where verification_id in ${sql(ids)} and state = 'delivered'`
        )[0].n >= ids.length,
      60_000,
    );
    const rows = await sql`
      select v.id, v.status, v.reason,
        (select count(*)::int from pipeline_jobs j where j.verification_id = v.id) as jobs,
        (select count(*)::int from pipeline_jobs j where j.verification_id = v.id and j.status = 'done') as done,
        (select max(tries)::int from pipeline_jobs j where j.verification_id = v.id) as tries,
        (select count(*)::int from audit_log l where l.verification_id = v.id and l.action = 'verification.decided') as decisions,
        (select count(*)::int from webhook_events e where e.verification_id = v.id) as events,
        (select count(*)::int from webhook_events e where e.verification_id = v.id and e.state = 'delivered' and e.attempts = 1) as delivered_first_time,
        (select min(e.id) from webhook_events e where e.verification_id = v.id) as event_id
      from verifications v where v.id in ${sql(ids)}`;
    expect(rows).toHaveLength(ids.length);
    const statuses: Record<string, number> = {};
    for (const r of rows) {
      const k = r.reason ? `${r.status}/${r.reason}` : r.status;
      statuses[k] = (statuses[k] ?? 0) + 1;
      expect([r.id, r.jobs, r.done, r.decisions, r.events, r.delivered_first_time]).toEqual([r.id, 1, 1, 1, 1, 1]);
    }
    const mine = new Map(rows.map((r) => [r.id as string, r]));
    const got = rx.received.filter((x) => mine.has(JSON.parse(x.body).verification_id));
    const perEvent = new Map<string, number>();
    for (const x of got) {
      const body = JSON.parse(x.body);
      const r = mine.get(body.verification_id)!;
      // The one event of this verification, with the status it was decided to, signed with the live key.
      expect([body.verification_id, x.headers['x-webhook-id'], body.status]).toEqual([r.id, r.event_id, r.status]);
      expect(signedBy(x, w.live)).toBe(true);
      perEvent.set(r.event_id, (perEvent.get(r.event_id) ?? 0) + 1);
    }
    expect(perEvent.size).toBe(ids.length);
    const repeats = [...perEvent.values()].reduce((s, n) => s + n - 1, 0);
    return { statuses, receipts: got.length, repeats, takenOver: rows.filter((r) => r.tries > 1).length };
  }

  it('the rate limit is one count: a burst of 100 over both instances, exactly 60 pass', async () => {
    const w = makeWorkspace(a, [], []); // the default limit: 60 a minute
    const lb = balancer(w);
    const res = await Promise.all(Array.from({ length: 100 }, () => lb.json('GET', '/v1/consent')));
    expect([lb.sent.get(a), lb.sent.get(b)]).toEqual([50, 50]);
    expect(res.filter((r) => r.status === 200)).toHaveLength(60);
    for (const r of res.filter((x) => x.status !== 200)) {
      expect(expectEnvelope(r, [429]).code).toBe('RATE_LIMIT');
      expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
  });

  it('200 live verifications over both instances: each decided exactly once, each webhook delivered exactly once', async () => {
    const w = makeWorkspace(a);
    a.ops('workspace:settings', '--workspace', w.id, '--webhook-url', rx.url);
    const lb = balancer(w);
    const t0 = Date.now();
    const ids = await load(lb, 200, 6, selfieOnly);
    const submitted = Date.now();
    const r = await exactlyOnce(w, ids, 120_000);
    console.log(
      `two instances: 200 verifications (${lb.sent.get(a)} requests to one instance, ${lb.sent.get(b)} to the other) created, consented, uploaded and submitted in ${((submitted - t0) / 1000).toFixed(0)} s, ` +
        `all decided and delivered ${((Date.now() - submitted) / 1000).toFixed(1)} s later: ${JSON.stringify(r.statuses)}; 200 pipeline jobs done (${r.takenOver} taken over), 200 decisions, 200 events, ${r.receipts} webhooks received`,
    );
    expect(Math.min(lb.sent.get(a)!, lb.sent.get(b)!)).toBeGreaterThanOrEqual(390);
    expect([r.receipts, r.repeats, r.takenOver]).toEqual([200, 0, 0]);
  }, 400_000);

  it('SIGKILL of one instance mid-load loses nothing: the other finishes its work after the lease, once each', async () => {
    // Passport flows: reading the MRZ takes a second or more, so the instance dies holding jobs.
    const w = makeWorkspace(a, ['--check-method', 'document_verification']);
    a.ops('workspace:settings', '--workspace', w.id, '--webhook-url', rx.url);
    const passports = await Promise.all(faces.map((f) => I.renderDocument('passport', 'front', f)));
    const media = async (i: number): Promise<[Record<string, string>, Buffer][]> => [
      [{ type: 'selfie' }, await nth(faces, i)],
      [{ type: 'document', side: 'front', document_type: 'passport' }, passports[i % passports.length]],
    ];
    const lb = balancer(w);
    let killing: Promise<void> | null = null;
    let killedAt = 0;
    let held: string[] = [];
    const t0 = Date.now();
    // A decision the victim claimed a moment ago on a submit it took itself (its own runner, at once): reading
    // the MRZ takes a second or more, so it is still running when the SIGKILL lands.
    const victimJustClaimed = async () => {
      const via = [...lb.submittedVia].filter(([, s]) => s === b).map(([id]) => id);
      if (!via.length) return undefined;
      const rows =
        await sql`select verification_id from pipeline_jobs where verification_id in ${sql(via)} and status = 'running' and updated_at > now() - interval '300 milliseconds'`;
      return rows.length ? rows : undefined;
    };
    const ids = await load(lb, 40, 6, media, (done) => {
      // Mid-load: once a third are submitted.
      if (killing || done < 13) return;
      killing = (async () => {
        await waitFor('a decision the victim just took', victimJustClaimed, 60_000, 10);
        killedAt = Date.now();
        await kill(b.server);
        lb.drop(b);
        // What the dead instance held: the jobs still running whose lease nobody renewed since the kill (the
        // survivor renews its own every third of a lease: wait one such period and a half).
        const [{ at }] = await sql`select now() as at`;
        await new Promise((r) => setTimeout(r, LEASE_MS / 2));
        held = (
          await sql`select j.verification_id from pipeline_jobs j join verifications v on v.id = j.verification_id
          where v.workspace_id = ${w.id} and j.status = 'running' and j.lease_until <= ${at}::timestamptz + ${`${LEASE_MS} milliseconds`}::interval`
        ).map((r) => r.verification_id as string);
      })();
    });
    await killing;
    const submitted = Date.now();
    const r = await exactlyOnce(w, ids, LEASE_MS + 120_000);
    const [{ first, last }] = await sql`
      select extract(epoch from min(status_changed_at))::float * 1000 as first, extract(epoch from max(status_changed_at))::float * 1000 as last
      from verifications where id in ${sql(held)}`;
    console.log(
      `kill -9 of one of two instances ${((killedAt - t0) / 1000).toFixed(0)} s into the load, holding ${held.length} decisions: 40 verifications submitted, ${JSON.stringify(r.statuses)}; ` +
        `${r.takenOver} jobs taken over by the other instance, those held by the dead one decided ${((first - killedAt) / 1000).toFixed(1)}–${((last - killedAt) / 1000).toFixed(1)} s after the kill (lease ${LEASE_MS / 1000} s; the last submit ${((submitted - t0) / 1000).toFixed(0)} s into the load); ` +
        `40 decisions, 40 events, ${r.receipts} webhooks received (${r.repeats} sent again with the same X-Webhook-Id)`,
    );
    // The dead instance's decisions were finished by the survivor once their lease ran out (renewed every third
    // of it while the work ran, so at least two thirds of it were left at the kill), each one decided once.
    expect(held.length).toBeGreaterThanOrEqual(1);
    expect(r.takenOver).toBeGreaterThanOrEqual(held.length);
    expect(first - killedAt).toBeGreaterThan((LEASE_MS * 2) / 3 - 1000);
    expect(last - killedAt).toBeLessThan(LEASE_MS + 60_000);
    // An attempt the dead instance sent but never recorded is sent again with its event id: at most what it had
    // in flight (none, usually: the receiver answers at once). Every other event arrived once.
    expect(r.repeats).toBeLessThanOrEqual(2);
  }, 400_000);
});

/**
 * npm run bench:admin [-- --verifications 100000] [--n 200]
 *
 * The admin area on Debian's PostgreSQL 15 with 100,000 verifications spread over five workspaces (their
 * audit entries and webhook events too), against the production build: the review queue, the search
 * (unfiltered, by status, by external id, by date range, five pages deep) and a case view with its three
 * photos (the page, then the three images decrypted by /admin/media/{token}, fetched in parallel as a
 * browser does). Each figure is the time from sending the request to the last byte, one request at a
 * time, on loopback: the server's time plus a loopback round trip. Signed in as an operator (every
 * workspace), as a reviewer of two workspaces and as the owner of the largest one (issue 15: its usage page,
 * 30 and 90 days, and the CSV, after the daily roll-up of the seeded history, which it times; its webhook
 * delivery log, all events and failures alone, with one event in thirty failed after four attempts).
 */
import sharp from 'sharp';
import { sql } from 'drizzle-orm';
import { encode } from 'next-auth/jwt';
import { connect, type Db } from '../lib/db/client';
import { media, verifications } from '../lib/db/schema';
import { benchFlags, ensureBuild, percentile, prepare, runBench, startService, stopAll } from './harness';
import { startPg15 } from '../test/helpers/pg15';

const flags = benchFlags({ verifications: '100000', n: '200' });
const N = Number(flags.verifications);
const RUNS = Number(flags.n);
const WORKSPACES = [0.4, 0.25, 0.15, 0.1, 0.1];
const CASES_WITH_PHOTOS = 50;

async function seed(db: Db, workspaceIds: string[]) {
  const t = Date.now();
  // Verifications over the last 90 days: 80 % live; statuses as a busy deployment has them (2 % waiting for review).
  await db.execute(sql`
    with w as (select * from unnest(string_to_array(${workspaceIds.join(',')}, ','), string_to_array(${WORKSPACES.join(',')}, ',')::float8[]) with ordinality as t(id, share, n)),
    cum as (select id, sum(share) over (order by n) as upto from w),
    g as (select i, random() as r1, random() as r2, random() as r3, random() as r4 from generate_series(1, ${N}) i)
    insert into verifications (id, workspace_id, mode, status, flow, check_method, external_id, capture_token_hash, attempts_used, reason, result, created_at, submitted_at, completed_at, status_changed_at, updated_at)
    select gen_random_uuid()::text,
      (select id from cum where cum.upto >= g.r1 order by upto limit 1),
      case when g.r2 < 0.8 then 'live' else 'test' end,
      s.status, 'age', 'estimation',
      'user-' || (g.i % ${Math.floor(N * 0.7)}),
      md5(random()::text) || md5(random()::text),
      case when s.status in ('created', 'started') then 0 else 1 end,
      case s.status when 'declined' then 'age_below_threshold' when 'resubmission_requested' then 'selfie_quality' end,
      case when s.status in ('approved', 'declined', 'review') then jsonb_build_object('decision', case s.status when 'approved' then 'pass' when 'declined' then 'fail' else 'refer' end, 'threshold', 18, 'estimated_age', 25, 'age_range', jsonb_build_object('min', 15, 'max', 35), 'confidence', 0.8) end,
      c.at, c.at + interval '2 minutes',
      case when s.status in ('approved', 'declined', 'expired', 'abandoned') then c.at + interval '3 minutes' end,
      c.at + interval '3 minutes', c.at + interval '3 minutes'
    from g
    cross join lateral (select now() - (g.r3 * interval '90 days') as at) c
    cross join lateral (select case
      when g.r4 < 0.70 then 'approved' when g.r4 < 0.80 then 'declined' when g.r4 < 0.82 then 'review'
      when g.r4 < 0.85 then 'resubmission_requested' when g.r4 < 0.90 then 'expired' when g.r4 < 0.93 then 'abandoned'
      when g.r4 < 0.97 then 'created' else 'started' end as status) s`);
  // Five audit entries and, for decided ones, a webhook event with one attempt: what the case view reads.
  await db.execute(sql`
    insert into audit_log (id, workspace_id, verification_id, actor, action, data, created_at)
    select 'aud_' || substr(md5(random()::text), 1, 26), v.workspace_id, v.id, a.actor, a.action, '{}'::jsonb, v.created_at + a.o * interval '30 seconds'
    from verifications v cross join (values ('key:k', 'verification.created', 0), ('capture', 'consent.accepted', 1), ('capture', 'media.uploaded', 2), ('capture', 'verification.submitted', 3), ('pipeline', 'verification.decided', 4)) a(actor, action, o)`);
  await db.execute(sql`
    insert into webhook_events (id, workspace_id, verification_id, status, body, state, attempts, next_attempt_at, created_at, updated_at)
    select 'evt_' || substr(md5(v.id), 1, 26), v.workspace_id, v.id, v.status, '{}',
      case when random() < 1.0 / 30 then 'failed' else 'delivered' end, 1, v.status_changed_at, v.status_changed_at, v.status_changed_at
    from verifications v where v.status in ('approved', 'declined', 'review', 'resubmission_requested', 'expired', 'abandoned')`);
  // A delivered event: one attempt; a failed one: four, each a 503 with the receiver's answer (the delivery log reads them).
  await db.execute(sql`
    insert into webhook_attempts (id, event_id, attempt, url, started_at, latency_ms, status_code, response_body, outcome)
    select 'wat_' || substr(md5(e.id || a.n), 1, 26), e.id, a.n, 'https://hooks.example.com/x', e.created_at + (a.n - 1) * interval '5 minutes', 80,
      case when e.state = 'failed' then 503 else 200 end, case when e.state = 'failed' then 'upstream unavailable' end,
      case when e.state = 'delivered' then 'delivered' when a.n = 4 then 'failed' else 'retry' end
    from webhook_events e cross join generate_series(1, 4) a(n)
    where a.n = 1 or e.state = 'failed'`);
  await db.execute(sql`analyze`);
  return Date.now() - t;
}

/**
 * Three photos as an upload stores them (JPEG, metadata stripped), encrypted, on some review cases: a 1280-wide
 * selfie from the packaged photo and the test suite's synthetic identity card, front and back.
 */
async function photos(db: Db) {
  const { mediaStore } = await import('../lib/domain/media/storage');
  const { newId } = await import('../lib/core/ids');
  const I = await import('../test/helpers/images');
  const stored = (img: Buffer) => sharp(img).rotate().jpeg({ quality: 90 }).toBuffer();
  const files = [
    await stored(await I.selfie1280()),
    await stored(await I.renderDocument('id_card', 'front')),
    await stored(await I.renderDocument('id_card', 'back')),
  ];
  const cases = await db
    .select({ id: verifications.id })
    .from(verifications)
    .where(sql`status = 'review' and mode = 'live'`)
    .limit(CASES_WITH_PHOTOS);
  for (const c of cases) {
    for (const [i, kind] of (['selfie', 'front', 'back'] as const).entries()) {
      const id = newId('med');
      await db.insert(media).values({
        id,
        verificationId: c.id,
        type: kind === 'selfie' ? 'selfie' : 'document',
        side: kind === 'selfie' ? null : kind,
        documentType: kind === 'selfie' ? null : 'id_card',
        contentType: 'image/jpeg',
        byteSize: files[i].length,
        width: 1280,
        height: 960,
        analysis: { checks: { file_type: { value: 'jpeg', passed: true } } },
      });
      await mediaStore.put(db, id, files[i]);
    }
  }
  return { cases: cases.map((c) => c.id), bytes: files.map((f) => f.length) };
}

/** The same reads without HTTP or rendering: the lib/domain/admin operations the pages call, on the same database. */
async function libTimings(
  db: Db,
  sessions: { operator: string; reviewer: string; owner: string },
  ids: string[],
  caseIds: string[],
) {
  const { loadSession } = await import('../lib/domain/admin/auth/sessions');
  const { reviewQueue, queueCounts } = await import('../lib/domain/admin/queue');
  const { searchVerifications } = await import('../lib/domain/admin/search');
  const { loadCase } = await import('../lib/domain/admin/case');
  const { usageFor } = await import('../lib/domain/admin/usage');
  const { aggregateDays } = await import('../lib/domain/usage/days');
  const { deliveryLog } = await import('../lib/domain/admin/webhooks');
  const op = (await loadSession(db, sessions.operator, new Date()))!.actor;
  const rev = (await loadSession(db, sessions.reviewer, new Date()))!.actor;
  const own = (await loadSession(db, sessions.owner, new Date()))!.actor;
  const runs: [string, () => Promise<unknown>][] = [
    ['session + actor (every page)', () => loadSession(db, sessions.reviewer, new Date())],
    [
      'queue + counts, one workspace (reviewer)',
      () => Promise.all([queueCounts(db, rev), reviewQueue(db, rev, { workspaceId: ids[0], mode: 'live' })]),
    ],
    [
      'queue + counts, all workspaces (operator)',
      () => Promise.all([queueCounts(db, op), reviewQueue(db, op, { mode: 'live' })]),
    ],
    ['search, everything (operator)', () => searchVerifications(db, op, {})],
    ['search, two workspaces (reviewer)', () => searchVerifications(db, rev, {})],
    [
      'search, status declined, live (operator)',
      () => searchVerifications(db, op, { status: 'declined', mode: 'live' }),
    ],
    ['search, by external_id (reviewer)', () => searchVerifications(db, rev, { q: 'user-4242' })],
    [
      'case, everything but the photo bytes (operator)',
      () => loadCase(db, op, caseIds[Math.floor(Math.random() * caseIds.length)]),
    ],
    ['usage, 30 days (owner of the largest workspace)', () => usageFor(db, own, ids[0], { days: 30 })],
    ['usage, 90 days (owner)', () => usageFor(db, own, ids[0], { days: 90 })],
    // What usageFor reads for a workspace never rolled up: twelve months of creations, 90 days of decisions, all live.
    [
      'usage days, 90 days, never rolled up (all live)',
      () =>
        aggregateDays(db, ids[0], {
          start: new Date(Date.now() - 365 * 864e5),
          end: new Date(),
          endInclusive: true,
          detailFrom: new Date(Date.now() - 90 * 864e5),
        }),
    ],
    ['delivery log, all events, page 1 (owner)', () => deliveryLog(db, own, { workspaceId: ids[0] })],
    [
      'delivery log, failed only, page 1 (owner)',
      () => deliveryLog(db, own, { workspaceId: ids[0], failedOnly: true }),
    ],
  ];
  const out: [string, number[]][] = [];
  for (const [name, fn] of runs) {
    for (let i = 0; i < 10; i++) await fn();
    const xs: number[] = [];
    for (let i = 0; i < RUNS; i++) xs.push(await time(async () => void (await fn())));
    out.push([name, xs]);
  }
  return out;
}

async function cookieFor(db: Db, userId: string) {
  const { createSession, redeemTicket } = await import('../lib/domain/admin/auth/sessions');
  const { authSecret } = await import('../lib/domain/admin/auth/secret');
  const s = await createSession(db, {
    userId,
    method: 'password',
    stage: 'full',
    ip: '127.0.0.1',
    userAgent: 'bench',
    now: new Date(),
  });
  await redeemTicket(db, s.ticket, new Date());
  const token = await encode({ token: { sid: s.id }, secret: authSecret(), salt: 'authjs.session-token' });
  return { cookie: `authjs.session-token=${token}`, sessionId: s.id };
}

async function time(fn: () => Promise<void>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

async function get(url: string, cookie: string): Promise<string> {
  const r = await fetch(url, { headers: { cookie }, redirect: 'manual' });
  const body = await r.text();
  if (r.status !== 200) throw new Error(`${url}: ${r.status} ${body.slice(0, 200)}`);
  return body;
}

async function main() {
  ensureBuild();
  console.log(`PostgreSQL 15, ${N.toLocaleString('en')} verifications in ${WORKSPACES.length} workspaces`);
  const pg = await startPg15({ shared_buffers: '512MB' });
  try {
    const base = await prepare(pg.url);
    const h = connect(pg.url, { max: 4 });
    const db = h.db;
    const { createWorkspace } = await import('../lib/domain/workspaces');
    const ids = [base.workspaceId];
    for (let i = 1; i < WORKSPACES.length; i++)
      ids.push((await createWorkspace(db, { name: `bench ${i + 1}` })).workspace.id);
    console.log(`seeded in ${((await seed(db, ids)) / 1000).toFixed(1)} s`);
    {
      // The usage page's daily roll-up, as the server's usage-rollup job does it on its first run (the whole history).
      const { rollUpUsage } = await import('../lib/domain/usage/days');
      const t = Date.now();
      const r = await rollUpUsage(db);
      console.log(
        `usage roll-up of the whole history: ${r.workspaces} workspaces, ${r.days} workspace-days, ${((Date.now() - t) / 1000).toFixed(1)} s`,
      );
    }
    const p = await photos(db);
    console.log(
      `photos on ${p.cases.length} live review cases: ${p.bytes.map((b) => `${Math.round(b / 1024)} KiB`).join(', ')}`,
    );
    const { createAdmin } = await import('../lib/domain/admin/users');
    const op = await createAdmin(db, { email: 'op@bench.local', password: 'bench bench bench', operator: true });
    const rev = await createAdmin(db, { email: 'rev@bench.local', password: 'bench bench bench' });
    const { setMembership } = await import('../lib/domain/admin/users');
    for (const w of ids.slice(0, 2))
      await setMembership(db, { email: 'rev@bench.local', workspaceId: w, role: 'reviewer', actor: 'operator' });
    const owner = await createAdmin(db, {
      email: 'own@bench.local',
      password: 'bench bench bench',
      workspaceId: ids[0],
      role: 'owner',
    });
    const signedIn = {
      operator: await cookieFor(db, op.id),
      reviewer: await cookieFor(db, rev.id),
      owner: await cookieFor(db, owner.id),
    };
    const who = {
      operator: signedIn.operator.cookie,
      reviewer: signedIn.reviewer.cookie,
      owner: signedIn.owner.cookie,
    };
    const counts = (await db.execute<{ status: string; n: number }>(
      sql`select status, count(*)::int as n from verifications group by status order by n desc`,
    )) as unknown as { status: string; n: number }[];
    console.log(`statuses: ${counts.map((c) => `${c.status} ${c.n}`).join(', ')}`);
    const url = await startService(base.env);

    const oneExternal = 'user-4242';
    const pages: [string, string, keyof typeof who][] = [
      ['queue, one workspace, live (reviewer)', `/admin/queue?workspace=${ids[0]}&mode=live`, 'reviewer'],
      ['queue, all workspaces, live (operator)', '/admin/queue?mode=live', 'operator'],
      ['queue, two workspaces, test (reviewer)', '/admin/queue?mode=test', 'reviewer'],
      ['search, everything, newest first (operator)', '/admin/verifications', 'operator'],
      ['search, two workspaces (reviewer)', '/admin/verifications', 'reviewer'],
      ['search, status declined, live (operator)', '/admin/verifications?status=declined&mode=live', 'operator'],
      [
        'search, status review, one workspace (reviewer)',
        `/admin/verifications?status=review&workspace=${ids[1]}`,
        'reviewer',
      ],
      ['search, by external_id (operator)', `/admin/verifications?q=${oneExternal}`, 'operator'],
      ['search, by external_id (reviewer)', `/admin/verifications?q=${oneExternal}`, 'reviewer'],
      ['usage, 30 days (owner)', `/admin/workspaces/${ids[0]}/usage`, 'owner'],
      ['usage, 90 days (operator)', `/admin/workspaces/${ids[0]}/usage?days=90`, 'operator'],
      ['usage CSV, 90 days (owner)', `/admin/workspaces/${ids[0]}/usage/csv?days=90`, 'owner'],
      ['delivery log, all events (owner)', `/admin/workspaces/${ids[0]}/webhooks`, 'owner'],
      ['delivery log, failed only (owner)', `/admin/workspaces/${ids[0]}/webhooks?failed=1`, 'owner'],
      [
        'search, 7-day range (operator)',
        `/admin/verifications?from=${new Date(Date.now() - 30 * 864e5).toISOString().slice(0, 10)}&to=${new Date(Date.now() - 23 * 864e5).toISOString().slice(0, 10)}`,
        'operator',
      ],
    ];
    // Round robin over the pages, so that whatever else the machine does falls on all of them alike.
    const results: [string, number[]][] = pages.map(([name]) => [name, []]);
    for (let i = 0; i < 10; i++) for (const [, path, as] of pages) await get(url + path, who[as]);
    for (let i = 0; i < RUNS; i++) {
      for (const [k, [, path, as]] of pages.entries())
        results[k][1].push(await time(async () => void (await get(url + path, who[as]))));
    }
    // Five pages deep: follow the "Older results" cursor.
    {
      const xs: number[] = [];
      for (let r = 0; r < Math.ceil(RUNS / 5); r++) {
        let path = '/admin/verifications?mode=live';
        for (let i = 0; i < 5; i++) {
          let html = '';
          xs.push(await time(async () => void (html = await get(url + path, who.operator))));
          const next = html.match(/href="(\/admin\/verifications\?[^"]*cursor=[^"]+)"/)?.[1];
          if (!next) throw new Error('no next page');
          path = next.replace(/&amp;/g, '&');
        }
      }
      results.push(['search, pages 1-5 by cursor (operator)', xs]);
    }
    // A case view: the page, then its three photos in parallel.
    {
      const xs: number[] = [];
      const pageOnly: number[] = [];
      for (let i = 0; i < RUNS + 10; i++) {
        const id = p.cases[i % p.cases.length];
        let html = '';
        const t = performance.now();
        html = await get(`${url}/admin/verifications/${id}`, who.operator);
        const tPage = performance.now() - t;
        const srcs = [...new Set([...html.matchAll(/src="(\/admin\/media\/[^"]+)"/g)].map((m) => m[1]))];
        if (srcs.length !== 3) throw new Error(`expected 3 photos, found ${srcs.length}`);
        await Promise.all(
          srcs.map(async (s) => {
            const r = await fetch(url + s, { headers: { cookie: who.operator } });
            if (r.status !== 200) throw new Error(`photo ${r.status}`);
            await r.arrayBuffer();
          }),
        );
        if (i >= 10) {
          xs.push(performance.now() - t);
          pageOnly.push(tPage);
        }
      }
      results.push(['case view, page only (operator)', pageOnly]);
      results.push(['case view with its three photos (operator)', xs]);
    }
    const lib = await libTimings(
      db,
      { operator: signedIn.operator.sessionId, reviewer: signedIn.reviewer.sessionId, owner: signedIn.owner.sessionId },
      ids,
      p.cases,
    );
    console.log(`\nServer-side reads (lib/domain/admin, in this process, same database), ${RUNS} each, ms:`);
    for (const [name, xs] of lib)
      console.log(
        `  ${name.padEnd(48)} p50 ${percentile(xs, 50).toFixed(1).padStart(6)}  p95 ${percentile(xs, 95).toFixed(1).padStart(6)}  max ${Math.max(
          ...xs,
        )
          .toFixed(1)
          .padStart(6)}`,
      );
    console.log(
      `\nThrough HTTP (production build: session, queries, rendering), ${RUNS} requests each (after 10 warm-up), one at a time; ms from request to last byte:`,
    );
    for (const [name, xs] of results) {
      // Issue 14's targets: queue and search 200 ms, a case with its photos 500 ms; issue 15's: the owners' pages 300 ms.
      const target = name.startsWith('case view with')
        ? 500
        : name.startsWith('case view')
          ? null
          : /^(usage|delivery log)/.test(name)
            ? 300
            : 200;
      const p95 = percentile(xs, 95);
      console.log(
        `  ${name.padEnd(48)} p50 ${percentile(xs, 50).toFixed(1).padStart(6)}  p95 ${p95.toFixed(1).padStart(6)}  max ${Math.max(
          ...xs,
        )
          .toFixed(1)
          .padStart(6)}${target ? `  (target p95 < ${target}: ${p95 < target ? 'met' : 'NOT met'})` : ''}`,
      );
    }
    await h.close();
  } finally {
    // The server first (its runner polls the database every quarter second), then the database.
    stopAll();
    await pg.stop();
  }
}

runBench(main);

/**
 * The admin area against a browser-less attacker, on the production build (SECURITY.md, "What the suites prove"):
 * - form posts (server actions, the sign-in form, Auth.js's endpoints) from anywhere but BASE_URL's origin are
 *   refused with 403 and change nothing: no Origin, a foreign Origin (with a matching X-Forwarded-Host or not),
 *   `Origin: null`; the same post from the origin, or with `Sec-Fetch-Site: same-origin`, is applied;
 * - the sign-in throttle counts the connection's address, whatever X-Forwarded-For says, unless the connection
 *   comes from a proxy in TRUSTED_PROXIES, whose X-Forwarded-For is then believed; the API's count of wrong
 *   signatures reads the same address (one resolution, server/serve.ts);
 * - a failed query in a server action or a page is logged without the values it bound.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as I from '@/test/helpers/images';
import { makeWorkspace, root, signedClient, startService, type Service } from './harness';

type Answer = { status: number; headers: http.IncomingHttpHeaders; text: string };

/** One request, from a chosen local address (127.0.0.2 is the trusted proxy here). */
function request(
  base: string,
  method: string,
  p: string,
  headers: Record<string, string>,
  body?: Buffer,
  localAddress = '127.0.0.1',
): Promise<Answer> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: u.port,
        method,
        path: p,
        headers: { ...headers, ...(body ? { 'content-length': String(body.length) } : {}) },
        localAddress,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () =>
          resolve({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function multipart(fields: [string, string][]) {
  const boundary = `----ov${crypto.randomBytes(8).toString('hex')}`;
  const body = Buffer.from(
    fields.map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`).join('') +
      `--${boundary}--\r\n`,
  );
  return { body, type: `multipart/form-data; boundary=${boundary}` };
}

const unescapeHtml = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#x27;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** The hidden inputs React renders for a server action's form (what a browser without JavaScript posts). */
function hiddenFields(html: string): [string, string][] {
  return [...html.matchAll(/<input type="hidden" name="([^"]+)"(?: value="([^"]*)")?\/>/g)].map((m) => [
    unescapeHtml(m[1]),
    unescapeHtml(m[2] ?? ''),
  ]);
}

/** A server action's id, from the build's manifest (what the browser's JavaScript sends as Next-Action). */
function actionId(name: string): string {
  const m = JSON.parse(fs.readFileSync(path.join(root, '.next/server/server-reference-manifest.json'), 'utf8')) as {
    node: Record<string, { exportedName?: string }>;
  };
  const hit = Object.entries(m.node).find(([, v]) => v.exportedName === name);
  if (!hit) throw new Error(`no server action ${name} in the build`);
  return hit[0];
}

const cookiesOf = (a: Answer) => (a.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]).join('; ');

describe('admin area: form posts, client addresses, logs', () => {
  let svc: Service;
  let origin = '';
  let signInFields: [string, string][] = [];
  const admin = {
    email: `op-${crypto.randomBytes(4).toString('hex')}@example.com`,
    password: 'correct horse battery staple',
  };

  beforeAll(async () => {
    // 127.0.0.2 stands for a reverse proxy in front of the server (the whole of 127/8 is this machine).
    svc = await startService({ TRUSTED_PROXIES: '127.0.0.2' });
    origin = `http://localhost:${svc.port}`; // BASE_URL (the default)
    svc.ops('admin:create', '--email', admin.email, '--password', admin.password, '--operator');
    signInFields = hiddenFields((await request(svc.server.base, 'GET', '/admin/sign-in', {})).text).filter(([k]) =>
      k.startsWith('$ACTION'),
    );
    expect(signInFields.length).toBeGreaterThanOrEqual(3);
  }, 300_000);
  afterAll(async () => {
    await svc?.cleanup();
  });

  /** The sign-in form as a browser without JavaScript posts it. */
  const signIn = (email: string, password: string, headers: Record<string, string> = { origin }, from?: string) => {
    const { body, type } = multipart([...signInFields, ['next', '/admin'], ['email', email], ['password', password]]);
    return request(svc.server.base, 'POST', '/admin/sign-in', { 'content-type': type, ...headers }, body, from);
  };

  /** A test-mode case waiting in review. */
  async function reviewCase() {
    const w = makeWorkspace(svc);
    const api = signedClient(() => svc.server.base, w.apiKey, w.test);
    const id = await api.prepare({ selfie: await I.cameraFrame() });
    expect((await api.submit(id)).data.status).toBe('review');
    return { id, status: async () => (await api.get(id)).status as string };
  }

  /** The decide form's server action, as the case page's JavaScript posts it. */
  const decide = (cookie: string, id: string, headers: Record<string, string>) => {
    // React's encoding of (previous state, form data): the form's fields under `_1_`, then the arguments naming them.
    const { body, type } = multipart([
      ['_1_verification_id', id],
      ['_1_status', 'approved'],
      ['_1_next_case', ''],
      ['_1_queue', ''],
      ['0', '["$undefined","$K1"]'],
    ]);
    return request(
      svc.server.base,
      'POST',
      `/admin/verifications/${id}`,
      { 'content-type': type, 'next-action': actionId('decideAction'), accept: 'text/x-component', cookie, ...headers },
      body,
    );
  };

  it(
    'state-changing admin requests from anywhere but BASE_URL’s origin are refused with 403 and change nothing',
    { timeout: 300_000 },
    async () => {
      // Signing in is a form post too.
      for (const headers of [{}, { origin: 'http://evil.example' }, { origin: 'null' }] as Record<string, string>[]) {
        const r = await signIn(admin.email, admin.password, headers);
        expect([JSON.stringify(headers), r.status, cookiesOf(r)]).toEqual([JSON.stringify(headers), 403, '']);
      }
      const ok = await signIn(admin.email, admin.password);
      expect(ok.status).toBe(303);
      const cookie = cookiesOf(ok);
      expect(cookie).toContain('authjs.session-token=');

      const c = await reviewCase();
      const refused: Record<string, string>[] = [
        {},
        { origin: 'http://evil.example' },
        { origin: 'http://evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'http' },
        { origin: 'null' },
        { origin: `https://localhost:${svc.port}` },
        { origin: `http://localhost:${svc.port + 1}` },
        { 'sec-fetch-site': 'cross-site' },
        { origin: 'http://evil.example', 'sec-fetch-site': 'same-origin' },
      ];
      for (const headers of refused) {
        const r = await decide(cookie, c.id, headers);
        expect([JSON.stringify(headers), r.status], r.text.slice(0, 300)).toEqual([JSON.stringify(headers), 403]);
      }
      expect(await c.status()).toBe('review');
      // Auth.js's own endpoints are guarded the same way.
      expect(
        (
          await request(
            svc.server.base,
            'POST',
            '/api/auth/signout',
            { 'content-type': 'application/x-www-form-urlencoded', cookie },
            Buffer.from('csrfToken=x'),
          )
        ).status,
      ).toBe(403);

      // From the origin: applied.
      const same = await decide(cookie, c.id, { origin });
      // Applied: the action answers with the redirect to the queue.
      expect([same.status, same.headers['x-action-redirect']], same.text.slice(0, 300)).toEqual([
        200,
        expect.stringContaining(`decided=${c.id}`),
      ]);
      expect(await c.status()).toBe('approved');
      // A browser that sends no Origin but says the request is same-origin.
      const c2 = await reviewCase();
      expect((await decide(cookie, c2.id, { 'sec-fetch-site': 'same-origin' })).headers['x-action-redirect']).toContain(
        `decided=${c2.id}`,
      );
      expect(await c2.status()).toBe('approved');
      // Reading is not affected.
      expect((await request(svc.server.base, 'GET', `/admin/verifications/${c.id}`, { cookie })).status).toBe(200);
    },
  );

  it(
    'a failed query in a server action or a page is logged without the values it bound',
    { timeout: 300_000 },
    async () => {
      const cookie = cookiesOf(await signIn(admin.email, admin.password));
      expect(cookie).toContain('authjs.session-token=');
      const url = JSON.parse(fs.readFileSync(path.join(svc.dataDir, 'server.json'), 'utf8')).databaseUrl as string;
      const sql = postgres(url, { max: 1, onnotice: () => {} });
      const markers = {
        signIn: `leak-${crypto.randomBytes(6).toString('hex')}@example.com`,
        search: `leak-${crypto.randomBytes(6).toString('hex')}`,
      };
      const logged = svc.server.out().length;
      try {
        // The sign-in throttle's table gone: the server action fails on its first query (the email is bound).
        await sql`alter table admin_sign_in_throttle rename to admin_sign_in_throttle_away`;
        expect((await signIn(markers.signIn, 'wrong password, surely')).status).toBe(500);
        await sql`alter table admin_sign_in_throttle_away rename to admin_sign_in_throttle`;
        // The verifications table gone: the search page fails rendering (the search term is bound).
        await sql`alter table verifications rename to verifications_away`;
        expect(
          (await request(svc.server.base, 'GET', `/admin/verifications?q=${markers.search}`, { cookie })).status,
        ).toBe(500);
      } finally {
        await sql`alter table if exists verifications_away rename to verifications`;
        await sql`alter table if exists admin_sign_in_throttle_away rename to admin_sign_in_throttle`;
        await sql.end();
      }
      // Next.js prints both errors itself: what it printed passed the log's redaction.
      await new Promise((r) => setTimeout(r, 1000));
      const out = svc.server.out().slice(logged);
      expect(out).toContain('Failed query');
      expect(out).toContain('[redacted]');
      expect(out).not.toContain(markers.signIn);
      expect(out).not.toContain(markers.search);
    },
  );

  it(
    'concurrent guesses cannot race past the sign-in lock: of 20 at once, 5 are checked; the right password sent once the lock is reached does not sign in',
    { timeout: 300_000 },
    async () => {
      const url = JSON.parse(fs.readFileSync(path.join(svc.dataDir, 'server.json'), 'utf8')).databaseUrl as string;
      const sql = postgres(url, { max: 1, onnotice: () => {} });
      const checked = async (email: string) => {
        const [r] = await sql<{ failed: number; signed: number }[]>`
        select count(*) filter (where action = 'admin.sign_in_failed')::int as failed,
               count(*) filter (where action = 'admin.signed_in')::int as signed
        from audit_log where data->>'email' = ${email} or (action = 'admin.signed_in' and actor in (select 'admin:' || id from admin_users where email = ${email}))`;
        return r;
      };
      try {
        // Each guess from its own address (through the trusted proxy 127.0.0.2), so only the account's lock is involved.
        const guess = (email: string, password: string, i: number) =>
          signIn(email, password, { origin, 'x-forwarded-for': `10.0.9.${i}` }, '127.0.0.2');
        const a = {
          email: `race-a-${crypto.randomBytes(4).toString('hex')}@example.com`,
          password: 'the right one, for a',
        };
        svc.ops('admin:create', '--email', a.email, '--password', a.password);
        const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => guess(a.email, `wrong guess ${i}`, i)));
        expect(answers.every((r) => cookiesOf(r) === '')).toBe(true);
        expect(await checked(a.email)).toEqual({ failed: 5, signed: 0 });

        // 19 wrong guesses at once, then the right one while they are in flight, once the account's count has reached
        // the limit: it is refused unchecked, and still only 5 were checked.
        const b = {
          email: `race-b-${crypto.randomBytes(4).toString('hex')}@example.com`,
          password: 'the right one, for b',
        };
        svc.ops('admin:create', '--email', b.email, '--password', b.password);
        const wrong = Array.from({ length: 19 }, (_, i) => guess(b.email, `wrong guess ${i}`, i));
        for (const end = Date.now() + 30_000; ;) {
          const [row] = await sql<
            { failures: number }[]
          >`select failures from admin_sign_in_throttle where key = ${`account:${b.email}`}`;
          if (row && row.failures >= 5) break;
          if (Date.now() > end) throw new Error('the guesses were never counted');
          await new Promise((r) => setTimeout(r, 5));
        }
        const right = await guess(b.email, b.password, 99);
        await Promise.all(wrong);
        expect(cookiesOf(right)).toBe('');
        expect(await checked(b.email)).toEqual({ failed: 5, signed: 0 });
      } finally {
        await sql.end();
      }
    },
  );

  it(
    'the sign-in lock follows the connection’s address, not X-Forwarded-For; a trusted proxy’s X-Forwarded-For is believed',
    { timeout: 300_000 },
    async () => {
      // 20 failures "from 10.0.0.60" (each on another account, so no account lock is involved).
      for (let i = 0; i < 20; i++) {
        const r = await signIn(
          `nobody-${i}-${crypto.randomBytes(3).toString('hex')}@example.com`,
          'wrong password, surely',
          { origin, 'x-forwarded-for': '10.0.0.60' },
        );
        expect(r.status).toBe(200);
      }
      // The right password "from 10.0.0.61": the same connection, so the same locked address.
      const next = await signIn(admin.email, admin.password, { origin, 'x-forwarded-for': '10.0.0.61' });
      expect([next.status, cookiesOf(next)]).toEqual([200, '']);
      expect(next.text).toContain('Too many attempts');
      // Through the trusted proxy (127.0.0.2), the client it names is another address: not locked.
      const viaProxy = await signIn(
        admin.email,
        admin.password,
        { origin, 'x-forwarded-for': '6.6.6.6, 203.0.113.9' },
        '127.0.0.2',
      );
      expect(viaProxy.status).toBe(303);
      // What the audit log recorded: the connection's address for the failures, the proxy's client for the sign-in.
      const url = JSON.parse(fs.readFileSync(path.join(svc.dataDir, 'server.json'), 'utf8')).databaseUrl as string;
      const sql = postgres(url, { max: 1, onnotice: () => {} });
      try {
        // This test's failures (the race test before it signs in through the proxy, from addresses of its own).
        const failed =
          await sql`select distinct data->>'ip' as ip from audit_log where action = 'admin.sign_in_failed' and data->>'email' like 'nobody-%'`;
        expect(failed.map((r) => r.ip)).toEqual(['127.0.0.1']);
        const [last] =
          await sql`select data->>'ip' as ip from audit_log where action = 'admin.signed_in' order by created_at desc limit 1`;
        expect(last.ip).toBe('203.0.113.9');
      } finally {
        await sql.end();
      }
    },
  );

  it(
    'the API counts wrong signatures by the same address: forwarded headers from a client change nothing; through the trusted proxy, the client it names',
    { timeout: 120_000 },
    async () => {
      const w = makeWorkspace(svc);
      const wrong = (headers: Record<string, string>, from?: string) =>
        request(
          svc.server.base,
          'GET',
          '/v1/consent',
          { 'x-api-key': w.apiKey, 'x-hmac-signature': 'f'.repeat(64), ...headers },
          undefined,
          from,
        );
      // Ten wrong signatures, each claiming another address (forwarded, and in the header only the server sets).
      for (let i = 0; i < 10; i++)
        expect((await wrong({ 'x-forwarded-for': `10.9.0.${i}`, 'x-ov-client-address': `10.9.1.${i}` })).status).toBe(
          401,
        );
      const refused = await wrong({ 'x-forwarded-for': '10.9.2.1', 'x-ov-client-address': '10.9.3.1' });
      expect([refused.status, JSON.parse(refused.text).error.details.scope]).toEqual([429, 'failed_signatures']);
      // Through the trusted proxy, the client it names is another address, counted apart.
      expect((await wrong({ 'x-forwarded-for': '203.0.113.20' }, '127.0.0.2')).status).toBe(401);
    },
  );
});

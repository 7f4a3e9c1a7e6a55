/**
 * Concurrency against a real multi-connection PostgreSQL 15 (Debian's server, started here):
 * the guarantees must hold where requests really run in parallel, across server processes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import { POST as create } from '@/app/v1/verifications/route';
import { POST as consent } from '@/app/v1/verifications/[id]/consent/route';
import { GET as getConsent } from '@/app/v1/consent/route';
import { connect, getDbHandle, setDbHandle, type DbHandle } from '@/lib/db/client';
import { applyMigrations } from '@/lib/db/migrate';
import { consentRecords } from '@/lib/db/schema';
import { takeRateLimit } from '@/lib/domain/ratelimit';
import { startPg15 } from '@/test/helpers/pg15';
import { call } from '@/test/helpers/http';
import { ensureConsent, makeWorkspace } from '@/test/helpers/factories';

describe('concurrency on PostgreSQL 15', () => {
  let pg: Awaited<ReturnType<typeof startPg15>>;
  let handle: DbHandle;
  let previous: DbHandle | undefined;

  beforeAll(async () => {
    pg = await startPg15();
    await applyMigrations(pg.url);
    previous = getDbHandle();
    handle = connect(pg.url, { max: 40 });
    setDbHandle(handle);
    const [{ v }] = await handle.db.execute<{ v: string }>(
      sql`select extversion as v from pg_extension where extname = 'vector'`,
    );
    expect(v).toMatch(/^0\.\d+/);
  }, 180_000);

  afterAll(async () => {
    setDbHandle(previous);
    await handle?.close();
    await pg?.stop();
  });

  it('50 simultaneous identical consent acceptances leave exactly one record', async () => {
    const active = await ensureConsent(handle.db);
    const w = await makeWorkspace({}, { db: handle.db });
    const c = await call(create, {
      method: 'POST',
      path: '/v1/verifications',
      body: {},
      apiKey: w.apiKey,
      secret: w.testSecret,
    });
    const id = c.json.data.id;
    const body = { consent_version_id: active.id, text_sha256: active.textSha256 };
    const rs = await Promise.all(
      Array.from({ length: 50 }, () =>
        call(consent, {
          method: 'POST',
          path: `/v1/verifications/${id}/consent`,
          body,
          apiKey: w.apiKey,
          secret: w.testSecret,
          params: { id },
        }),
      ),
    );
    expect(rs.map((r) => r.status)).toEqual(Array(50).fill(200));
    expect(new Set(rs.map((r) => r.json.data.consent.accepted_at)).size).toBe(1);
    const rows = await handle.db.select().from(consentRecords).where(eq(consentRecords.verificationId, id));
    expect(rows).toHaveLength(1);
  });

  it('100 simultaneous requests of one workspace: exactly 60 succeed, 40 get RATE_LIMIT; another workspace is unaffected', async () => {
    await ensureConsent(handle.db);
    const a = await makeWorkspace({}, { db: handle.db });
    const b = await makeWorkspace({}, { db: handle.db });
    const get = (w: typeof a) => call(getConsent, { path: '/v1/consent', apiKey: w.apiKey, secret: w.testSecret });
    const [ra, rb] = await Promise.all([
      Promise.all(Array.from({ length: 100 }, () => get(a))),
      Promise.all(Array.from({ length: 10 }, () => get(b))),
    ]);
    const codes = ra.map((r) => r.status);
    expect(codes.filter((s) => s === 200)).toHaveLength(60);
    expect(codes.filter((s) => s === 429)).toHaveLength(40);
    for (const r of ra.filter((x) => x.status === 429)) {
      expect(r.json.error.code).toBe('RATE_LIMIT');
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    expect(rb.map((r) => r.status)).toEqual(Array(10).fill(200));
  });

  it('the limit holds across server processes: two separate pools share one count', async () => {
    const p1 = connect(pg.url, { max: 20 });
    const p2 = connect(pg.url, { max: 20 });
    try {
      const key = `ws:proc-${Math.random()}`;
      const now = Date.now();
      const results = await Promise.all(
        Array.from({ length: 100 }, (_, i) => takeRateLimit((i % 2 ? p1 : p2).db, key, 60, now)),
      );
      expect(results.filter((r) => r.allowed)).toHaveLength(60);
      expect(new Set(results.filter((r) => r.allowed).map((r) => r.remaining)).size).toBe(60);
    } finally {
      await p1.close();
      await p2.close();
    }
  });
});

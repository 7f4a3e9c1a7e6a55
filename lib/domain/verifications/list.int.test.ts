/** GET /v1/verifications (extension, docs/api.md "Reconciliation"): filters, cursor pages, scope, errors, index. */
import { beforeAll, describe, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { verifications } from '@/lib/db/schema';
import { GET as list, POST as create } from '@/app/v1/verifications/route';
import { call } from '@/test/helpers/http';
import { ensureConsent, makeWorkspace, type TestWorkspace } from '@/test/helpers/factories';
import { POST as acceptConsent } from '@/app/v1/verifications/[id]/consent/route';
import { transitionWithWebhook } from '@/test/helpers/transitions';

describe('GET /v1/verifications', () => {
  let w: TestWorkspace;
  let other: TestWorkspace;
  const ids: string[] = [];
  const get = (path: string, ws = w, secret = ws.testSecret) => call(list, { path, apiKey: ws.apiKey, secret });

  beforeAll(async () => {
    w = await makeWorkspace();
    other = await makeWorkspace();
    for (const external_id of ['acct-1', 'acct-2', 'acct-1', 'acct-3', 'acct-1']) {
      const c = await call(create, {
        method: 'POST',
        path: '/v1/verifications',
        body: { external_id, external_metadata: { n: ids.length } },
        apiKey: w.apiKey,
        secret: w.testSecret,
      });
      ids.push(c.json.data.id);
    }
    // Another workspace's and the live mode's, with the same external_id: never listed here.
    await call(create, {
      method: 'POST',
      path: '/v1/verifications',
      body: { external_id: 'acct-1' },
      apiKey: other.apiKey,
      secret: other.testSecret,
    });
    await call(create, {
      method: 'POST',
      path: '/v1/verifications',
      body: { external_id: 'acct-1' },
      apiKey: w.apiKey,
      secret: w.liveSecret,
    });
  });

  it('lists the workspace and mode of the key, oldest change first, each as GET shows it', async () => {
    const r = await get('/v1/verifications');
    expect(r.status).toBe(200);
    expect(r.json.data.items.map((v: { id: string }) => v.id)).toEqual(ids);
    expect(r.json.data.next_cursor).toBeNull();
    expect(r.json.data.items[0]).toMatchObject({
      id: ids[0],
      status: 'created',
      mode: 'test',
      external_id: 'acct-1',
      external_metadata: { n: 0 },
      updated_at: expect.any(String),
      duplicate_check: { checked: false },
    });
    const live = await get('/v1/verifications', w, w.liveSecret);
    expect(live.json.data.items.map((v: { mode: string }) => v.mode)).toEqual(['live']);
  });

  it('filters by external_id, status (comma-separated) and updated_since', async () => {
    const byExternal = await get('/v1/verifications?external_id=acct-1');
    expect(byExternal.json.data.items.map((v: { id: string }) => v.id)).toEqual([ids[0], ids[2], ids[4]]);
    await transitionWithWebhook(getDb(), { verificationId: ids[2], trigger: 'expiry_timer' });
    const expired = await get('/v1/verifications?status=expired');
    expect(expired.json.data.items.map((v: { id: string }) => v.id)).toEqual([ids[2]]);
    const two = await get('/v1/verifications?status=expired,created&external_id=acct-1');
    // ids[2] changed last, so it comes last.
    expect(two.json.data.items.map((v: { id: string }) => v.id)).toEqual([ids[0], ids[4], ids[2]]);
    const [row] = await getDb().select().from(verifications).where(eq(verifications.id, ids[2]));
    const since = await get(`/v1/verifications?updated_since=${encodeURIComponent(row.updatedAt.toISOString())}`);
    expect(since.json.data.items.map((v: { id: string }) => v.id)).toEqual([ids[2]]);
    // Accepting consent changes what GET shows: the verification is listed as changed.
    const active = await ensureConsent();
    await call(acceptConsent, {
      method: 'POST',
      path: `/v1/verifications/${ids[0]}/consent`,
      body: { consent_version_id: active.id, text_sha256: active.textSha256 },
      apiKey: w.apiKey,
      secret: w.testSecret,
      params: { id: ids[0] },
    });
    const [consented] = await getDb().select().from(verifications).where(eq(verifications.id, ids[0]));
    expect(consented.updatedAt.getTime()).toBeGreaterThan(row.updatedAt.getTime());
    const after = await get(`/v1/verifications?updated_since=${encodeURIComponent(consented.updatedAt.toISOString())}`);
    expect(
      after.json.data.items.map((v: { id: string; consent_accepted: boolean }) => [v.id, v.consent_accepted]),
    ).toEqual([[ids[0], true]]);
    const none = await get('/v1/verifications?external_id=nobody');
    expect(none.json.data).toEqual({ items: [], next_cursor: null });
  });

  it('cursor pages: every row once, in order, however the pages fall', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const r = await get(`/v1/verifications?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(r.status).toBe(200);
      expect(r.json.data.items.length).toBeLessThanOrEqual(2);
      seen.push(...r.json.data.items.map((v: { id: string }) => v.id));
      cursor = r.json.data.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(new Set(seen).size).toBe(5);
    const all = await get('/v1/verifications?limit=100');
    expect(seen).toEqual(all.json.data.items.map((v: { id: string }) => v.id));
  });

  it('malformed queries are 422 VALIDATION_ERROR in the envelope', async () => {
    const bad: [string, string][] = [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=two', 'limit'],
      ['status=finished', 'status'],
      ['status=', 'status'],
      ['updated_since=yesterday', 'updated_since'],
      ['updated_since=2026-11-22T10:00:00', 'updated_since'],
      ['cursor=not-a-cursor', 'cursor'],
      [`cursor=${Buffer.from('2026-01-01 00:00:00|x').toString('base64url')}`, 'cursor'],
      ['sort=desc', 'sort'],
      ['limit=1&limit=2', 'limit'],
      ['external_id=', 'external_id'],
    ];
    for (const [q, field] of bad) {
      const r = await get(`/v1/verifications?${q}`);
      expect([q, r.status, r.json.error.code]).toEqual([q, 422, 'VALIDATION_ERROR']);
      expect(Object.keys(r.json.error.details.fields).map((k) => k.split('.')[0])).toContain(field);
    }
  });

  it('is signed like every GET: over the path and the query as sent', async () => {
    const unsigned = await call(list, { path: '/v1/verifications', apiKey: w.apiKey });
    expect([unsigned.status, unsigned.json.error.code]).toEqual([401, 'MISSING_SIGNATURE']);
    const wrongQuery = await call(list, {
      path: '/v1/verifications?status=created',
      apiKey: w.apiKey,
      signature: (await import('@/lib/domain/auth/sign')).signJsonRequest(w.testSecret, 'GET', '/v1/verifications', ''),
    });
    expect([wrongQuery.status, wrongQuery.json.error.code]).toEqual([401, 'INVALID_SIGNATURE']);
  });

  it('the query runs on its indexes, not a scan of the table', async () => {
    const plan = async (extra: ReturnType<typeof sql>) =>
      getDb().transaction(async (tx) => {
        await tx.execute(sql`set local enable_seqscan = off`);
        const rows = await tx.execute<{ 'QUERY PLAN': string }>(sql`explain select * from verifications
          where workspace_id = ${w.workspace.id} and mode = 'test' ${extra}
          order by updated_at, id limit 51`);
        return Array.from(rows)
          .map((r) => r['QUERY PLAN'])
          .join('\n');
      });
    const since = await plan(sql`and updated_at >= now() - interval '1 day'`);
    expect(since).toMatch(/verifications_sync_idx/);
    expect(since).not.toMatch(/Seq Scan/);
    // By external_id the planner may take the workspace's sync index or the plain external_id index
    // (on a small table it costs them alike); either finds the rows without reading the table.
    const byExternal = await plan(sql`and external_id = 'acct-1'`);
    expect(byExternal).toMatch(/Index (Only )?Scan using verifications_external_(sync|id)_idx/);
    expect(byExternal).not.toMatch(/Seq Scan/);
  });
});

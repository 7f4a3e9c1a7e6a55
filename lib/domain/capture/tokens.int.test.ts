/**
 * Capture tokens are stored hashed (issue #19): a new link's token appears nowhere in the database, yet the
 * link opens its verification and the integrator still reads its url; links handed out before the
 * migration keep working after it, with their clear text gone.
 */
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import { getDb } from '@/lib/db/client';
import { MIGRATIONS_DIR } from '@/lib/db/migrate';
import { databaseBefore } from '@/test/helpers/migrations';
import { POST as create } from '@/app/v1/verifications/route';
import { GET as getOne } from '@/app/v1/verifications/[id]/route';
import { GET as captureState } from '@/app/api/capture/[token]/route';
import { call } from '@/test/helpers/http';
import { makeWorkspace } from '@/test/helpers/factories';
import { captureTokenHash, verificationByToken } from './auth';

describe('capture tokens at rest', () => {
  it('a new link: its token is nowhere in the database, and still opens its verification; GET shows the url', async () => {
    const w = await makeWorkspace();
    const c = await call(create, {
      method: 'POST',
      path: '/v1/verifications',
      body: {},
      apiKey: w.apiKey,
      secret: w.testSecret,
    });
    const { id, url } = c.json.data;
    const token = new URL(url).pathname.split('/').pop()!;
    // The whole row, and every table, as text: no trace of the token.
    const [{ hits }] = await getDb().execute<{ hits: number }>(
      sql`select count(*)::int as hits from verifications v where v::text like ${'%' + token + '%'}`,
    );
    expect(hits).toBe(0);
    const [{ stored }] = await getDb().execute<{ stored: string }>(
      sql`select capture_token_hash as stored from verifications where id = ${id}`,
    );
    expect(stored).toBe(captureTokenHash(token));
    expect((await verificationByToken(getDb(), token))?.v.id).toBe(id);
    const s = await call(captureState, { path: `/api/capture/${token}`, params: { token } });
    expect(s.status).toBe(200);
    const g = await call(getOne, {
      path: `/v1/verifications/${id}`,
      apiKey: w.apiKey,
      secret: w.testSecret,
      params: { id },
    });
    expect(g.json.data.url).toBe(url);
    // A token two characters off opens nothing.
    expect(await verificationByToken(getDb(), token.slice(0, -2) + (token.endsWith('AA') ? 'BB' : 'AA'))).toBeNull();
  });

  describe('the migration from clear-text tokens', () => {
    const before = databaseBefore('_hashed_capture_tokens');

    it('links handed out before keep working, their clear text is gone, their url is null', async () => {
      const h = await before.open(); // the database as it was before this migration
      try {
        const token = 'legacyTOKEN_' + 'x'.repeat(31);
        await h.sql`insert into workspaces (id, name, api_key) values ('ws_legacy', 'legacy', 'pk_legacy')`;
        await h.sql`insert into verifications (id, workspace_id, mode, flow, capture_token) values ('00000000-0000-7000-8000-000000000001', 'ws_legacy', 'test', 'age', ${token})`;

        await migrate(h.db, { migrationsFolder: MIGRATIONS_DIR });
        const cols =
          await h.sql`select column_name from information_schema.columns where table_name = 'verifications' and column_name like 'capture_token%' order by 1`;
        expect(cols.map((c) => c.column_name)).toEqual(['capture_token_ciphertext', 'capture_token_hash']);
        const [{ hits }] =
          await h.sql`select count(*)::int as hits from verifications v where v::text like ${'%' + token + '%'}`;
        expect(hits).toBe(0);
        const found = await verificationByToken(h.db, token);
        expect(found?.v.id).toBe('00000000-0000-7000-8000-000000000001');
        expect(found?.v.captureTokenCiphertext).toBeNull();
      } finally {
        await h.close();
      }
    });
  });
});

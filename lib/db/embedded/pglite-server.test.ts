/** The embedded engine's wire server: many client connections on PGlite's single backend. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import net from 'node:net';
import postgres from 'postgres';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './pglite-server';

describe('embedded PGlite wire server', () => {
  let pg: EmbeddedPostgres;
  let sql: postgres.Sql;

  beforeAll(async () => {
    pg = await startEmbeddedPostgres({});
    sql = postgres(pg.url, { max: 12, onnotice: () => {} });
    await sql`create table counter (n int)`;
  });
  afterAll(async () => {
    await sql.end();
    await pg.stop();
  });

  it('first-time queries of different shapes on many connections never see each other’s statements', async () => {
    // Each distinct text makes postgres.js send Parse/Describe/Flush and wait before Bind/Execute/Sync:
    // if another connection ran in between, the unnamed statement would be replaced.
    const jobs = Array.from({ length: 300 }, (_, i) => {
      const n = 1 + (i % 6);
      const params = Array.from({ length: n }, (_, k) => i * 10 + k);
      const text = `select ${params.map((_, k) => `$${k + 1}::int`).join(' + ')} as s, ${i} as tag`;
      return sql
        .unsafe(text, params)
        .then((r) => ({ i, s: Number(r[0].s), tag: Number(r[0].tag), want: params.reduce((a, b) => a + b, 0) }));
    });
    const results = await Promise.all(jobs);
    for (const r of results) expect([r.tag, r.s]).toEqual([r.i, r.want]);
  });

  it('transactions on different connections are serialised, not interleaved', async () => {
    await sql`insert into counter values (0)`;
    await Promise.all(
      Array.from({ length: 40 }, () =>
        sql.begin(async (tx) => {
          const [{ n }] = await tx`select n from counter`;
          await tx`update counter set n = ${n + 1}`;
        }),
      ),
    );
    expect((await sql`select max(n)::int as n from counter`)[0].n).toBe(40);
  });

  it('an error stays with its connection; a rolled-back transaction leaves nothing', async () => {
    const outcomes = await Promise.allSettled([
      sql`select 1/0`,
      sql`select 2 as two`,
      sql.begin(async (tx) => {
        await tx`insert into counter values (999)`;
        throw new Error('abort');
      }),
    ]);
    expect(outcomes[0].status).toBe('rejected');
    expect(outcomes[1]).toMatchObject({ status: 'fulfilled', value: [{ two: 2 }] });
    expect(outcomes[2].status).toBe('rejected');
    expect(await sql`select count(*)::int as c from counter where n = 999`).toEqual([{ c: 0 }]);
  });

  it('a client that vanishes inside a transaction does not block the others', async () => {
    // Another client (its own pool) opens a transaction, writes, and its connection is destroyed mid-way.
    const other = postgres(pg.url, { max: 1, onnotice: () => {} });
    let inside!: () => void;
    const entered = new Promise<void>((r) => (inside = r));
    const tx = other
      .begin(async (t) => {
        await t`insert into counter values (777)`;
        inside();
        await new Promise(() => {}); // never commits
      })
      .catch(() => 'gone');
    await entered;
    await other.end({ timeout: 0 }); // the socket is destroyed, the transaction left open on the server
    expect(await tx).toBe('gone');
    const [{ c }] = await sql`select count(*)::int as c from counter where n = 777`;
    expect(c).toBe(0);
  });

  describe('authentication (SCRAM-SHA-256)', () => {
    const withUrl = async (url: string) => {
      const s = postgres(url, { max: 1, onnotice: () => {}, connect_timeout: 5 });
      try {
        return await s`select 1 as one`.then(
          () => 'ok',
          (e: { code?: string }) => e.code ?? String(e),
        );
      } finally {
        await s.end({ timeout: 1 });
      }
    };
    const u = () => new URL(pg.url);

    it('the generated password lets the owner in', async () => {
      expect(u().password.length).toBeGreaterThanOrEqual(40);
      expect(await withUrl(pg.url)).toBe('ok');
    });

    it('a wrong password, no password, or another user is refused (28P01), as is a client offered nothing else', async () => {
      const wrong = u();
      wrong.password = 'postgres';
      expect(await withUrl(wrong.href)).toBe('28P01');
      const none = u();
      none.password = '';
      expect(await withUrl(none.href)).not.toBe('ok');
      const otherUser = u();
      otherUser.username = 'admin';
      expect(await withUrl(otherUser.href)).toBe('28P01');
    });

    it('nothing reaches the engine before the login: a query sent right after the startup is not answered', async () => {
      const socket = net.connect(pg.port, '127.0.0.1');
      await new Promise((r) => socket.once('connect', r));
      const params = Buffer.from('user\0postgres\0database\0postgres\0\0');
      const startup = Buffer.alloc(8);
      startup.writeInt32BE(8 + params.length, 0);
      startup.writeInt32BE(196608, 4);
      const q = Buffer.from('select * from counter;\0');
      const query = Buffer.concat([Buffer.from('Q'), Buffer.alloc(4), q]);
      query.writeInt32BE(4 + q.length, 1);
      let seen = Buffer.alloc(0);
      const closed = new Promise((r) => socket.once('close', r));
      socket.on('data', (d) => (seen = Buffer.concat([seen, d])));
      socket.on('error', () => {});
      socket.write(Buffer.concat([startup, params, query]));
      await closed;
      // Exactly AuthenticationSASL (R, code 10), then an ErrorResponse (the query is not a SASL response):
      // no RowDescription, DataRow or ReadyForQuery.
      const types: string[] = [];
      for (let i = 0; i + 5 <= seen.length; i += 1 + seen.readInt32BE(i + 1)) types.push(String.fromCharCode(seen[i]));
      expect(types).toEqual(['R', 'E']);
      expect(seen.readInt32BE(5)).toBe(10);
      expect(seen.includes(Buffer.from('C08P01'))).toBe(true);
    });
  });

  it('pgvector is loaded', async () => {
    const [{ d }] = await sql`select '[1,0]'::vector <=> '[0,1]'::vector as d`;
    expect(Number(d)).toBeCloseTo(1);
  });
});

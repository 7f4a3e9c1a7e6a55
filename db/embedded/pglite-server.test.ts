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
      return sql.unsafe(text, params).then((r) => ({ i, s: Number(r[0].s), tag: Number(r[0].tag), want: params.reduce((a, b) => a + b, 0) }));
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
    const outcomes = await Promise.allSettled([sql`select 1/0`, sql`select 2 as two`, sql.begin(async (tx) => {
      await tx`insert into counter values (999)`;
      throw new Error('abort');
    })]);
    expect(outcomes[0].status).toBe('rejected');
    expect(outcomes[1]).toMatchObject({ status: 'fulfilled', value: [{ two: 2 }] });
    expect(outcomes[2].status).toBe('rejected');
    expect(await sql`select count(*)::int as c from counter where n = 999`).toEqual([{ c: 0 }]);
  });

  it('a client that vanishes inside a transaction does not block the others', async () => {
    // A raw wire client: startup, then BEGIN + INSERT as a simple query, then the socket is dropped.
    const socket = net.connect(pg.port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    const params = Buffer.from('user\0postgres\0database\0postgres\0\0');
    const startup = Buffer.alloc(8);
    startup.writeInt32BE(8 + params.length, 0);
    startup.writeInt32BE(196608, 4);
    const q = Buffer.from('begin; insert into counter values (777);\0');
    const query = Buffer.concat([Buffer.from('Q'), Buffer.alloc(4), q]);
    query.writeInt32BE(4 + q.length, 1);
    let seen = Buffer.alloc(0);
    const inTransaction = new Promise<void>((resolve) =>
      socket.on('data', (d) => {
        seen = Buffer.concat([seen, d]);
        // ReadyForQuery 'Z' with status 'T' (in a transaction block)
        for (let i = 0; i + 5 < seen.length; i++) if (seen[i] === 0x5a && seen.readInt32BE(i + 1) === 5 && seen[i + 5] === 0x54) resolve();
      }),
    );
    socket.write(Buffer.concat([startup, params]));
    await new Promise((r) => setTimeout(r, 100));
    socket.write(query);
    await inTransaction;
    socket.destroy();
    const [{ c }] = await sql`select count(*)::int as c from counter where n = 777`;
    expect(c).toBe(0);
  });

  it('pgvector is loaded', async () => {
    const [{ d }] = await sql`select '[1,0]'::vector <=> '[0,1]'::vector as d`;
    expect(Number(d)).toBeCloseTo(1);
  });
});

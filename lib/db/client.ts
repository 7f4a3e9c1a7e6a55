import postgres from 'postgres';
import { drizzle, type PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import * as schema from './schema';
import { env } from '../core/env';
import { transactionScope } from './after-commit';
import { dbServer, traceQuery, type DbServer } from '../core/observability/db';

export type Db = PostgresJsDatabase<typeof schema>;
/** A database handle or an open transaction: domain operations accept either, so callers compose them. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
export type DbOrTx = Db | Tx;

export type DbHandle = { db: Db; sql: postgres.Sql; close: () => Promise<void> };

export function connect(url: string, opts: { max?: number } = {}): DbHandle {
  const sql = postgres(url, {
    max: opts.max ?? 10,
    onnotice: () => {},
    idle_timeout: 30,
    connect_timeout: 10,
    // postgres.js waits 3^n / 100 s (up to 20 s) between connection attempts after n failures: after a
    // database restart, requests hung for up to 20 s, then were served. At most 1 s: a request during an
    // outage fails fast (503 DATABASE_UNAVAILABLE), and the pool is back within a second of the database.
    backoff: (retries: number) => Math.min(1, 0.05 * 2 ** retries) * (0.5 + Math.random() / 2),
  });
  const db = drizzle(preparing(sql, dbServer(url)), { schema });
  return { db, sql, close: () => sql.end({ timeout: 5 }) };
}

/**
 * drizzle runs ordinary queries through `unsafe(text, params, { prepare: false })`: unnamed statements,
 * so every query costs Parse/Describe, a round trip, then Bind/Execute. Prepared (named, cached per
 * connection, as postgres.js does for its own tagged queries) a repeated query is one round trip.
 * Applied to the transaction clients that `begin` and `savepoint` hand out too. Each outermost `begin` also
 * runs in a transaction scope, so work registered with afterCommit() starts once it committed. Inside a trace,
 * each statement gets its database span (lib/core/observability/db.ts).
 */
function preparing<T extends postgres.Sql | postgres.TransactionSql>(client: T, server: DbServer): T {
  return new Proxy(client, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (prop === 'unsafe') {
        return (text: string, args?: unknown[], opts?: object) =>
          traceQuery(
            (target.unsafe as (t: string, a?: unknown[], o?: object) => unknown)(text, args, {
              ...opts,
              prepare: true,
            }),
            text,
            server,
          );
      }
      if (prop === 'begin' || prop === 'savepoint') {
        return (...a: unknown[]) => {
          const cb = a[a.length - 1] as (tx: postgres.TransactionSql) => unknown;
          a[a.length - 1] = (tx: postgres.TransactionSql) => cb(preparing(tx, server));
          const open = () => (value as (...x: unknown[]) => Promise<unknown>).apply(target, a);
          return prop === 'begin' ? transactionScope(open) : open();
        };
      }
      return typeof value === 'function' ? value.bind(target) : value;
    },
  }) as T;
}

// One pool per process, kept on globalThis so Next's dev reloads do not open a new pool each time.
const g = globalThis as unknown as { __ovDb?: DbHandle };

export function getDb(): Db {
  return getDbHandle().db;
}

export function getDbHandle(): DbHandle {
  if (!g.__ovDb) {
    const url = env().DATABASE_URL;
    if (!url) throw new Error('DATABASE_URL is not set: start the service with `npm run dev` or `npm start`');
    g.__ovDb = connect(url, { max: env().DATABASE_POOL_SIZE });
  }
  return g.__ovDb;
}

/** Tests point the process at another database. */
export function setDbHandle(handle: DbHandle | undefined) {
  g.__ovDb = handle;
}

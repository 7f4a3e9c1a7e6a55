import postgres from 'postgres';
import { drizzle, type PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import * as schema from './schema';
import { env } from '../lib/env';

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
  });
  const db = drizzle(sql, { schema });
  return { db, sql, close: () => sql.end({ timeout: 5 }) };
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

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import { connect } from './client';

export const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

/** Applies the committed migrations. Safe to run concurrently: drizzle's table plus an advisory lock. */
export async function applyMigrations(url: string): Promise<void> {
  const h = connect(url, { max: 1 });
  try {
    await h.sql`select pg_advisory_lock(727274)`;
    try {
      await migrate(h.db, { migrationsFolder: MIGRATIONS_DIR });
    } finally {
      await h.sql`select pg_advisory_unlock(727274)`;
    }
  } finally {
    await h.close();
  }
}

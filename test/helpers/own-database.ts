/**
 * A database of a test file's own: a fresh embedded engine, or Debian's PostgreSQL 15, migrated and made this
 * process's database (getDb) for the file, then stopped and the shared one put back. For tests that change
 * what every other file would see (a key rotation) or need a real multi-connection server.
 */
import { afterAll, beforeAll } from 'vitest';
import { connect, getDbHandle, setDbHandle, type DbHandle } from '@/lib/db/client';
import { applyMigrations } from '@/lib/db/migrate';
import { startEmbeddedPostgres } from '@/lib/db/embedded/pglite-server';
import { ensureConsent } from './factories';
import { startPg15 } from './pg15';

export function ownDatabase(kind: 'embedded' | 'pg15', opts: { pool?: number } = {}) {
  let engine: { url: string; stop: () => Promise<void> } | undefined;
  let handle: DbHandle | undefined;
  let previous: DbHandle | undefined;
  beforeAll(async () => {
    engine = kind === 'pg15' ? await startPg15() : await startEmbeddedPostgres({});
    await applyMigrations(engine.url);
    previous = getDbHandle();
    handle = connect(engine.url, { max: opts.pool ?? 10 });
    setDbHandle(handle);
    await ensureConsent(handle.db);
  }, 180_000);
  afterAll(async () => {
    setDbHandle(previous);
    await handle?.close();
    await engine?.stop();
  });
  return { db: () => handle!.db, url: () => engine!.url };
}

/** Tests of a data migration: a database of their own, as it was just before that migration ran. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import { MIGRATIONS_DIR } from '@/lib/db/migrate';
import { connect, type DbHandle } from '@/lib/db/client';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '@/lib/db/embedded/pglite-server';

/**
 * An embedded database for the calling describe block (started before its tests, stopped after them); `open()`
 * connects to it and applies every migration before the one whose tag ends with `tagSuffix` (its number may
 * change when branches merge), from a copy of them in a temporary folder.
 */
export function databaseBefore(tagSuffix: string) {
  let pg: EmbeddedPostgres;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ov-mig-'));
  beforeAll(async () => {
    pg = await startEmbeddedPostgres({});
  });
  afterAll(async () => {
    await pg.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return {
    async open(): Promise<DbHandle> {
      const journal = JSON.parse(fs.readFileSync(path.join(MIGRATIONS_DIR, 'meta/_journal.json'), 'utf8'));
      const upto = journal.entries.findIndex((e: { tag: string }) => e.tag.endsWith(tagSuffix));
      expect(upto).toBeGreaterThan(0);
      fs.mkdirSync(path.join(dir, 'meta'));
      for (const e of journal.entries.slice(0, upto))
        fs.copyFileSync(path.join(MIGRATIONS_DIR, `${e.tag}.sql`), path.join(dir, `${e.tag}.sql`));
      fs.writeFileSync(
        path.join(dir, 'meta/_journal.json'),
        JSON.stringify({ ...journal, entries: journal.entries.slice(0, upto) }),
      );
      const h = connect(pg.url, { max: 1 });
      await migrate(h.db, { migrationsFolder: dir });
      return h;
    },
  };
}

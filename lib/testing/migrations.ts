/** Tests of a data migration: the database as it was just before that migration ran. */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import { MIGRATIONS_DIR } from '@/db/migrate';
import type { Db } from '@/db/client';

/**
 * Applies every migration before the one whose tag ends with `tagSuffix` (its number may change when branches
 * merge), from a copy of them written into `dir`.
 */
export async function migrateUpTo(db: Db, dir: string, tagSuffix: string) {
  const journal = JSON.parse(fs.readFileSync(path.join(MIGRATIONS_DIR, 'meta/_journal.json'), 'utf8'));
  const upto = journal.entries.findIndex((e: { tag: string }) => e.tag.endsWith(tagSuffix));
  expect(upto).toBeGreaterThan(0);
  fs.mkdirSync(path.join(dir, 'meta'));
  for (const e of journal.entries.slice(0, upto)) fs.copyFileSync(path.join(MIGRATIONS_DIR, `${e.tag}.sql`), path.join(dir, `${e.tag}.sql`));
  fs.writeFileSync(path.join(dir, 'meta/_journal.json'), JSON.stringify({ ...journal, entries: journal.entries.slice(0, upto) }));
  await migrate(db, { migrationsFolder: dir });
}

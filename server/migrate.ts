/** `npm run db:migrate`: applies the committed migrations to DATABASE_URL (or the embedded database). */
import { parseEnv } from '../lib/core/env';
import { resolveRuntime } from '../lib/db/runtime';
import { applyMigrations } from '../lib/db/migrate';

process.umask(0o077); // the embedded database's files, when this opens it: the owner's only
const runtime = await resolveRuntime(parseEnv(process.env), { own: false });
try {
  await applyMigrations(runtime.databaseUrl);
  console.log('migrations applied');
} finally {
  await runtime.release();
}

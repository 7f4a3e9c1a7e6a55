/** `npm run db:migrate`: applies the committed migrations to DATABASE_URL (or the embedded database). */
import { parseEnv } from '../lib/env';
import { resolveRuntime } from '../db/runtime';
import { applyMigrations } from '../db/migrate';

const runtime = await resolveRuntime(parseEnv(process.env), { own: false });
try {
  await applyMigrations(runtime.databaseUrl);
  console.log('migrations applied');
} finally {
  await runtime.release();
}

/**
 * Provisions the fonts and photos the tests render and analyse (PostgreSQL 15 is provisioned by the
 * tests that start it), builds the image-analysis worker when it is missing or stale, then starts the embedded engine (PGlite over the wire, as in production's
 * default) once for the test run.
 */
import type { TestProject } from 'vitest/node';
import { randomBytes } from 'node:crypto';
import { provisionOrExit } from '@/test/setup/provision.mjs';
import { startEmbeddedPostgres } from '@/lib/db/embedded/pglite-server';
import { applyMigrations } from '@/lib/db/migrate';
import { clearTestLogs } from './test-logs';
import { root } from './server';
import { buildAnalysisWorker } from '@/server/build-analysis-worker.mjs';
import { analysisWorkerProblem } from '@/lib/domain/media/worker-file';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    encryptionKey: string;
  }
}

export default async function setup(project: TestProject) {
  provisionOrExit(['fonts', 'photos']);
  clearTestLogs();
  // The servers and pools the tests start use the built worker, as production does (never built at run time).
  if (analysisWorkerProblem(root)) await buildAnalysisWorker({ quiet: true });
  const pg = await startEmbeddedPostgres({});
  await applyMigrations(pg.url);
  project.provide('databaseUrl', pg.url);
  project.provide('encryptionKey', randomBytes(32).toString('base64'));
  return async () => {
    await pg.stop();
  };
}

/**
 * Next.js start-up hook: starts the image-analysis workers, and the in-process runner (decision pipeline,
 * webhook delivery, inactivity timers) unless Inngest is configured (INNGEST_EVENT_KEY / INNGEST_DEV: then
 * Inngest calls /api/inngest) or IN_PROCESS_RUNNER=off.
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  // Start the image-analysis workers now, so the first upload does not wait for the face models (≈1.5 s).
  const { analysisPool } = await import('./lib/domain/media/pool');
  analysisPool();
  const { onShutdown } = await import('./lib/core/lifecycle');
  const { getDb, getDbHandle } = await import('./lib/db/client');
  // At shutdown (server/serve.ts), after the runner's jobs and the workers' images: the pool closes last.
  onShutdown('database', 'database-pool', () => getDbHandle().close());
  const { env, inngestEnabled } = await import('./lib/core/env');
  if (env().IN_PROCESS_RUNNER === 'off') return;
  if (inngestEnabled() && env().IN_PROCESS_RUNNER !== 'on') return;
  const { startLocalRunner } = await import('./lib/domain/jobs/local-runner');
  const runner = startLocalRunner({ db: getDb() });
  onShutdown('runner', 'in-process-runner', () => runner.stop());
}

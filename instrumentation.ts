/**
 * Next.js start-up hook: starts the image-analysis workers, and the in-process runner (decision pipeline,
 * webhook delivery, inactivity timers) unless Inngest is configured (INNGEST_EVENT_KEY / INNGEST_DEV: then
 * Inngest calls /api/inngest) or IN_PROCESS_RUNNER=off.
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  // Start the image-analysis workers now, so the first upload does not wait for the face models (≈1.5 s).
  const { analysisPool } = await import('./lib/media/pool');
  analysisPool();
  const { env, inngestEnabled } = await import('./lib/env');
  if (env().IN_PROCESS_RUNNER === 'off') return;
  if (inngestEnabled() && env().IN_PROCESS_RUNNER !== 'on') return;
  const { getDb } = await import('./db/client');
  const { startLocalRunner } = await import('./lib/jobs/local-runner');
  startLocalRunner({ db: getDb() });
}

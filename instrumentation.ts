/**
 * Next.js start-up hook: starts the in-process runner (webhook delivery, inactivity timers). It runs whether or not Inngest
 * is configured, because no Inngest function delivers webhooks yet; IN_PROCESS_RUNNER=off disables it.
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  // Start the image-analysis workers now, so the first upload does not wait for the face models (≈1.5 s).
  const { analysisPool } = await import('./lib/media/pool');
  analysisPool();
  if (process.env.IN_PROCESS_RUNNER === 'off') return;
  const { getDb } = await import('./db/client');
  const { startInProcessRunner } = await import('./lib/runner/in-process');
  startInProcessRunner({ db: getDb() });
}

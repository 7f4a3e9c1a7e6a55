/** Next.js start-up hook: starts the in-process runner unless Inngest runs the background work. */
export async function register() {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  if (process.env.INNGEST_EVENT_KEY || process.env.INNGEST_DEV || process.env.IN_PROCESS_RUNNER === 'off') return;
  const { getDb } = await import('./db/client');
  const { startInProcessRunner } = await import('./lib/runner/in-process');
  startInProcessRunner({ db: getDb() });
}

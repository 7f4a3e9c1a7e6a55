/**
 * The process's lifecycle, shared by the HTTP server (server/serve.ts) and the code Next.js loads
 * (instrumentation, routes): both see the same registry on globalThis, whichever copy of this module they
 * imported. On SIGTERM the server stops accepting, lets in-flight requests finish, then runs the hooks in
 * order: background work finishes its jobs, the analysis workers stop, the database pool closes, the last spans
 * are exported.
 */
export type ShutdownStage = 'runner' | 'workers' | 'database' | 'telemetry';
/** Telemetry last: the spans of the work finished above are exported before the process ends. */
const ORDER: ShutdownStage[] = ['runner', 'workers', 'database', 'telemetry'];

type State = { draining: boolean; hooks: { stage: ShutdownStage; name: string; fn: () => Promise<void> }[] };
const g = globalThis as unknown as { __ovLifecycle?: State };
const state = (): State => (g.__ovLifecycle ??= { draining: false, hooks: [] });

/** Registers work to finish at shutdown (replacing an earlier hook of the same name: dev reloads). */
export function onShutdown(stage: ShutdownStage, name: string, fn: () => Promise<void>) {
  const s = state();
  s.hooks = s.hooks.filter((h) => h.name !== name);
  s.hooks.push({ stage, name, fn });
}

/** True once shutdown has begun: readiness answers 503 so a load balancer stops sending traffic. */
export const isDraining = () => state().draining;
export const startDraining = () => {
  state().draining = true;
};

/** Runs the hooks stage by stage; each stage gets what is left of `budgetMs`. Never throws. */
export async function runShutdownHooks(budgetMs: number, log: (m: string) => void = () => {}) {
  const until = Date.now() + budgetMs;
  for (const stage of ORDER) {
    const hooks = state().hooks.filter((h) => h.stage === stage);
    const left = Math.max(0, until - Date.now());
    await Promise.race([
      Promise.all(
        hooks.map((h) =>
          h.fn().catch((e) => log(`shutdown ${h.name} failed: ${e instanceof Error ? e.message : String(e)}`)),
        ),
      ),
      new Promise((r) => setTimeout(r, left).unref()),
    ]);
  }
}

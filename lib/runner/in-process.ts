/**
 * The in-process runner: when no Inngest is configured, the server itself moves due work forward on a
 * short poll. It calls the same lib/ functions the Inngest functions wrap; every step is idempotent and
 * claims rows with SKIP LOCKED, so several servers on one database never do the same work twice.
 */
import type { Db } from '@/db/client';
import { log } from '../log';
import { deliverDueWebhooks, type DeliverDeps } from '../webhooks/deliver';
import { sweepTimers } from '../verifications/timers';

export type Runner = { stop: () => Promise<void> };

export function startInProcessRunner(deps: { db: Db; intervalMs?: number; webhook?: Partial<DeliverDeps> }): Runner {
  const interval = deps.intervalMs ?? 250;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let lastSweep = 0;

  const tick = async () => {
    try {
      // Inactivity timers are measured in days: a sweep a minute is plenty.
      if (Date.now() - lastSweep >= 60_000) {
        lastSweep = Date.now();
        await sweepTimers(deps.db);
      }
      // Drain: keep going while there is due work, then wait for the next tick.
      while (!stopped && (await deliverDueWebhooks({ db: deps.db, ...deps.webhook })) > 0);
    } catch (e) {
      log.error('runner tick failed', { err: e });
    }
    if (!stopped) timer = setTimeout(() => (running = tick()), interval);
  };
  timer = setTimeout(() => (running = tick()), 0);
  return {
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}

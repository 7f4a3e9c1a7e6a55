/**
 * The events that start background work, with their payloads, and the one way to send them. Domain code
 * sends an event right after the transaction that wrote the work commits (`announce`, through
 * lib/db/after-commit.ts): a pipeline job row, a webhook event row. The rows are the record; the event only says
 * "start now". Where it goes: Inngest when it is configured, else the in-process runner of this process
 * (lib/domain/jobs/local-runner.ts), else nowhere — a process without a runner (the CLI) leaves the work to the
 * server, which finds it in the tables.
 */
import { z } from 'zod';
import { afterCommit } from '@/lib/db/after-commit';
import { inngestEnabled } from '../../core/env';
import { log } from '../../core/log';

export const EVENTS = {
  'verification/submitted': z.object({ verificationId: z.string() }),
  'webhook/enqueued': z.object({ eventId: z.string() }),
} as const;

export type EventName = keyof typeof EVENTS;
export type EventPayload<N extends EventName> = z.infer<(typeof EVENTS)[N]>;

type Transport = (name: EventName, data: Record<string, unknown>) => Promise<void> | void;
// Kept on globalThis, not in this module: Next.js bundles instrumentation.ts (which starts the runner) apart from
// the route handlers (which announce work), so each has its own copy of this module. In module state the routes'
// copy never saw the runner: their events went nowhere and every decision waited for the runner's 1 s due-work
// poll (bench:pipeline: 543 ms from submit to decision, of which 15 ms was the decision).
const g = globalThis as unknown as { __ovLocalTransport?: Transport | null };

/** The in-process runner receives this process's events while it runs. */
export function setLocalTransport(t: Transport | null) {
  g.__ovLocalTransport = t;
}

export async function sendEvent<N extends EventName>(name: N, data: EventPayload<N>): Promise<void> {
  try {
    if (inngestEnabled()) {
      const { inngest } = await import('@/lib/domain/events/inngest-client');
      await inngest.send({ name, data });
    } else {
      await g.__ovLocalTransport?.(name, data);
    }
  } catch (e) {
    // The work is in Postgres: the safety-net crons find it. Lost events cost latency, never work.
    log.warn('event not sent', { event: name, err: e });
  }
}

/** Sends the event once the current transaction commits (at once outside one). */
export function announce<N extends EventName>(name: N, data: EventPayload<N>) {
  return afterCommit(() => sendEvent(name, data));
}

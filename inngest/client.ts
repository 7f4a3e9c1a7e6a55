/**
 * The Inngest client. Inngest runs the background work when INNGEST_EVENT_KEY or INNGEST_DEV is set;
 * otherwise the in-process runner (lib/runner/in-process.ts) calls the same lib/ functions.
 */
import { Inngest } from 'inngest';
import { inngestEnabled } from '@/lib/env';

export const inngest = new Inngest({ id: 'open-verify' });


export const EVENTS = {
  submitted: 'verification/submitted',
  webhookEnqueued: 'webhook/enqueued',
} as const;

/**
 * Sends an event after the transaction that wrote the work committed. A lost event loses nothing: the
 * cron safety nets pick the rows up.
 */
export async function notify(name: (typeof EVENTS)[keyof typeof EVENTS], data: Record<string, string>) {
  if (!inngestEnabled()) return;
  try {
    await inngest.send({ name, data });
  } catch {
    // The row is in Postgres; the safety-net cron finds it.
  }
}

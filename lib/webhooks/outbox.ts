import { webhookEvents } from '@/db/schema';
import type { DbOrTx } from '@/db/client';
import { newId } from '../ids';
import type { VerificationRow } from '@/db/schema';
import { buildWebhookBody } from './payload';
import { announce } from '../jobs/events';
import { currentTraceparent } from '../observability/tracing';

/**
 * Writes the webhook event of a status change, in the caller's transaction (outbox), and announces it once
 * that transaction commits, so the first attempt starts at once. The row carries the trace of the work that
 * caused it (a request, a decision job), which each attempt continues.
 */
export async function enqueueWebhook(db: DbOrTx, v: VerificationRow, at: Date) {
  const id = newId('evt');
  await db
    .insert(webhookEvents)
    .values({ id, workspaceId: v.workspaceId, verificationId: v.id, status: v.status, body: buildWebhookBody(v, at), nextAttemptAt: at, traceparent: currentTraceparent() });
  await announce('webhook/enqueued', { eventId: id });
  return id;
}

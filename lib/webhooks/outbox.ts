import { webhookEvents } from '@/db/schema';
import type { DbOrTx } from '@/db/client';
import { newId } from '../ids';
import type { VerificationRow } from '@/db/schema';
import { buildWebhookBody } from './payload';
import { announce } from '../jobs/events';

/**
 * Writes the webhook event of a status change, in the caller's transaction (outbox), and announces it once
 * that transaction commits, so the first attempt starts at once.
 */
export async function enqueueWebhook(db: DbOrTx, v: VerificationRow, at: Date) {
  const id = newId('evt');
  await db.insert(webhookEvents).values({ id, workspaceId: v.workspaceId, verificationId: v.id, status: v.status, body: buildWebhookBody(v, at), nextAttemptAt: at });
  await announce('webhook/enqueued', { eventId: id });
  return id;
}

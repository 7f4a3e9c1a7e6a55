import { webhookEvents } from '@/db/schema';
import type { DbOrTx } from '@/db/client';
import { newId } from '../ids';
import type { VerificationRow } from '@/db/schema';
import { buildWebhookBody } from './payload';

/** Writes the webhook event of a status change, in the caller's transaction (outbox). */
export async function enqueueWebhook(db: DbOrTx, v: VerificationRow, at: Date) {
  const id = newId('evt');
  await db.insert(webhookEvents).values({ id, workspaceId: v.workspaceId, verificationId: v.id, status: v.status, body: buildWebhookBody(v, at), nextAttemptAt: at });
  return id;
}

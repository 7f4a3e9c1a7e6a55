import { eq } from 'drizzle-orm';
import { dataKeys, webhookEvents } from '@/lib/db/schema';
import type { DbOrTx } from '@/lib/db/client';
import { newId } from '../../core/ids';
import type { VerificationRow } from '@/lib/db/schema';
import { buildWebhookBody, redactWebhookBody } from './payload';
import { announce } from '../events/events';
import { DataKeyDestroyedError, ensureDataKey, unwrapDataKey } from '../personal-data/data-keys';
import { AAD, openVerification, sealText } from '../personal-data/personal';
import { currentTraceparent } from '../../core/observability/tracing';

/**
 * The webhook of a status change, when the move fires one (its `webhook` in TRANSITIONS,
 * lib/domain/transitions/state-machine.ts): every caller of applyTransition calls this right after the move, in the
 * same transaction, so the event is written with the status it reports (docs/architecture.md "No hidden work").
 */
export async function enqueueTransitionWebhook(
  db: DbOrTx,
  moved: { row: VerificationRow; transition: { webhook: boolean } },
): Promise<string | null> {
  return moved.transition.webhook ? enqueueWebhook(db, moved.row, moved.row.updatedAt) : null;
}

/**
 * Writes the webhook event of a status change, in the caller's transaction (outbox), and announces it once
 * that transaction commits, so the first attempt starts at once. The row carries the trace of the work that
 * caused it (a request, a decision job), which each attempt continues.
 *
 * A body carrying personal fields (external_metadata, device_signals) is stored whole only under the
 * verification's data key; `body` keeps it without them, which is what goes out once the data is erased
 * (docs/privacy.md, "What is stored").
 */
export async function enqueueWebhook(db: DbOrTx, v: VerificationRow, at: Date, deviceSignals?: unknown) {
  const id = newId('evt');
  let key: Buffer | null = null;
  if (v.externalMetadataSealed) {
    const [row] = await db.select().from(dataKeys).where(eq(dataKeys.verificationId, v.id));
    key = row ? unwrapDataKey(row) : null;
  }
  const full = buildWebhookBody(key ? openVerification(v, key) : v, at, deviceSignals);
  const clear = redactWebhookBody(full);
  let body = full;
  let bodySealed: Buffer | null = null;
  if (clear !== null) {
    body = clear;
    try {
      bodySealed = sealText(key ?? (await ensureDataKey(db, v.id)), AAD.webhookBody(id), full);
    } catch (e) {
      // Device signals arriving after the erasure: they go nowhere.
      if (!(e instanceof DataKeyDestroyedError)) throw e;
    }
  }
  await db.insert(webhookEvents).values({
    id,
    workspaceId: v.workspaceId,
    verificationId: v.id,
    status: v.status,
    body,
    bodySealed,
    nextAttemptAt: at,
    traceparent: currentTraceparent(),
  });
  await announce('webhook/enqueued', { eventId: id });
  return id;
}

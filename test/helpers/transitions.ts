/** A status change as the service's callers make it (docs/architecture.md "No hidden work"). */
import type { DbOrTx } from '@/lib/db/client';
import { applyTransition } from '@/lib/domain/transitions/state-machine';
import { enqueueTransitionWebhook } from '@/lib/domain/webhooks/outbox';

/** The move, then the webhook it fires, in one transaction. */
export function transitionWithWebhook(db: DbOrTx, input: Parameters<typeof applyTransition>[1]) {
  return db.transaction(async (tx) => {
    const moved = await applyTransition(tx, input);
    await enqueueTransitionWebhook(tx, moved);
    return moved;
  });
}

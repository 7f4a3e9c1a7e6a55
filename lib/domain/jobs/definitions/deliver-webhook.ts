/**
 * Webhook delivery (docs/webhooks.md "Delivery and retries"). Started by `webhook/enqueued`, sent after the
 * status change that wrote the event committed: the first attempt goes out at once, and each retry when its
 * delay (WEBHOOK_RETRY_DELAYS) has passed (`again`). Postgres records every attempt. The cron delivers
 * whatever is due that no event started (a lost event, a runner that went away between attempts).
 */
import { deliverDueWebhooks, deliverWebhookEvent } from '../../webhooks/deliver';
import { defineJob } from '../job';

export const deliverWebhook = defineJob({
  id: 'deliver-webhook',
  description: 'deliver a webhook event, one attempt at a time, on the retry schedule',
  event: 'webhook/enqueued',
  cron: '* * * * *',
  concurrency: 20,
  run: async (ctx, payload) => {
    const deps = { db: ctx.db, now: ctx.now, ...ctx.webhook };
    if (!payload) {
      let delivered = 0;
      for (let n; (n = await deliverDueWebhooks(deps, 100)) > 0;) delivered += n;
      return { result: { attempted: delivered } };
    }
    const progress = await deliverWebhookEvent(deps, payload.eventId);
    return {
      result: progress && { state: progress.state, attempts: progress.attempts },
      again: progress?.state === 'pending' ? progress.nextAttemptAt : null,
    };
  },
});

import { asc, eq, inArray } from 'drizzle-orm';
import { webhookAttempts, webhookEvents } from '@/db/schema';
import type { DbOrTx } from '@/db/client';

/** A verification's webhook events with every attempt, oldest first (operator view). */
export async function listWebhookEvents(db: DbOrTx, verificationId: string) {
  const events = await db.select().from(webhookEvents).where(eq(webhookEvents.verificationId, verificationId)).orderBy(asc(webhookEvents.createdAt));
  const attempts = events.length
    ? await db.select().from(webhookAttempts).where(inArray(webhookAttempts.eventId, events.map((e) => e.id))).orderBy(asc(webhookAttempts.attempt))
    : [];
  return events.map((e) => ({
    id: e.id,
    status: e.status,
    state: e.state,
    attempts: e.attempts,
    next_attempt_at: e.state === 'pending' ? e.nextAttemptAt.toISOString() : null,
    created_at: e.createdAt.toISOString(),
    body: e.body,
    attempt_log: attempts
      .filter((a) => a.eventId === e.id)
      .map((a) => ({ attempt: a.attempt, started_at: a.startedAt.toISOString(), status_code: a.statusCode, latency_ms: a.latencyMs, outcome: a.outcome, error: a.error, response_body: a.responseBody, key_id: a.keyId })),
  }));
}

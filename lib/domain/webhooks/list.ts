import { asc, eq, inArray } from 'drizzle-orm';
import { webhookAttempts, webhookEvents } from '@/lib/db/schema';
import type { DbOrTx } from '@/lib/db/client';
import { AAD, dataKeyRows, keyOpener, openText } from '../personal-data/personal';

type EventRow = typeof webhookEvents.$inferSelect;
type AttemptRow = typeof webhookAttempts.$inferSelect;

/**
 * A stored event's body and its attempts' answers as they were, opened with the verification's data key
 * (`key`: its unwrapped key, or null once erased: then the body without the personal fields, and no answers).
 */
export function openWebhookEvent(e: Pick<EventRow, 'id' | 'body' | 'bodySealed'>, key: Buffer | null): string {
  return (e.bodySealed && openText(key, AAD.webhookBody(e.id), e.bodySealed)) || e.body;
}
export function openWebhookResponse(
  a: Pick<AttemptRow, 'id' | 'responseBody' | 'responseSealed'>,
  key: Buffer | null,
): string | null {
  return a.responseSealed ? openText(key, AAD.webhookResponse(a.id), a.responseSealed) : a.responseBody;
}

/** A verification's webhook events with every attempt, oldest first (operator view). */
export async function listWebhookEvents(db: DbOrTx, verificationId: string) {
  const events = await db
    .select()
    .from(webhookEvents)
    .where(eq(webhookEvents.verificationId, verificationId))
    .orderBy(asc(webhookEvents.createdAt));
  const attempts = events.length
    ? await db
        .select()
        .from(webhookAttempts)
        .where(
          inArray(
            webhookAttempts.eventId,
            events.map((e) => e.id),
          ),
        )
        .orderBy(asc(webhookAttempts.attempt))
    : [];
  const sealed = events.some((e) => e.bodySealed) || attempts.some((a) => a.responseSealed);
  const key = sealed ? keyOpener(await dataKeyRows(db, [verificationId]))(verificationId) : null;
  return events.map((e) => ({
    id: e.id,
    status: e.status,
    state: e.state,
    attempts: e.attempts,
    next_attempt_at: e.state === 'pending' ? e.nextAttemptAt.toISOString() : null,
    created_at: e.createdAt.toISOString(),
    body: openWebhookEvent(e, key),
    attempt_log: attempts
      .filter((a) => a.eventId === e.id)
      .map((a) => ({
        attempt: a.attempt,
        started_at: a.startedAt.toISOString(),
        status_code: a.statusCode,
        latency_ms: a.latencyMs,
        outcome: a.outcome,
        error: a.error,
        response_body: openWebhookResponse(a, key),
        key_id: a.keyId,
      })),
  }));
}

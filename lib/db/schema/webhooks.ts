import { index, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { ts } from './columns';
import { bytea, verifications } from './verifications';
import { workspaces } from './workspaces';

/**
 * Outbox of webhook events: written in the same transaction as the status change that fires it.
 * The exact JSON sent is serialised once. When it carries personal fields (external_metadata, device_signals)
 * it is stored whole only under the verification's data key (`body_sealed`), and `body` holds it without them
 * (external_metadata null, no device_signals): what is sent once the data is erased (lib/domain/personal-data/personal.ts).
 * `lease_until` is held by the runner that claimed it, so a runner that dies mid-send lets the event come due
 * again (sent twice, never lost).
 */
export const webhookEvents = pgTable(
  'webhook_events',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    verificationId: text('verification_id')
      .notNull()
      .references(() => verifications.id),
    status: text('status').notNull(),
    body: text('body').notNull(),
    bodySealed: bytea('body_sealed'),
    /** pending → delivered (2xx) | completed (a 4xx not retried) | failed (4 attempts) | skipped (no URL) */
    state: text('state', { enum: ['pending', 'delivered', 'completed', 'failed', 'skipped'] })
      .notNull()
      .default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: ts('next_attempt_at').notNull().defaultNow(),
    /** Held by a runner sending an attempt until then (a runner that died mid-send lets go when it passes). */
    leaseUntil: ts('lease_until'),
    /** W3C traceparent of the span that wrote the event (a decision, a review), when tracing is on: each attempt joins that trace. */
    traceparent: text('traceparent'),
    createdAt: ts('created_at').notNull().defaultNow(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [
    index('webhook_events_due_idx').on(t.state, t.nextAttemptAt),
    index('webhook_events_verification_idx').on(t.verificationId, t.createdAt),
    // The admin delivery log (issue 15): a workspace's events newest first, and its failures alone.
    index('webhook_events_workspace_idx').on(t.workspaceId, t.createdAt, t.id),
    index('webhook_events_workspace_failed_idx')
      .on(t.workspaceId, t.createdAt, t.id)
      .where(sql`${t.state} = 'failed'`),
    // Bodies an earlier version stored with personal fields in the clear (lib/domain/retention/upgrade.ts seals them).
    index('webhook_events_unsealed_idx')
      .on(t.id)
      .where(sql`${t.bodySealed} is null and ${t.body} ~ '"(external_metadata":[[:space:]]*[{]|device_signals":)'`),
  ],
);

export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: text('id').primaryKey(),
    eventId: text('event_id')
      .notNull()
      .references(() => webhookEvents.id),
    attempt: integer('attempt').notNull(),
    url: text('url'),
    keyId: text('key_id'),
    startedAt: ts('started_at').notNull(),
    latencyMs: integer('latency_ms'),
    statusCode: integer('status_code'),
    /** The receiver's answer, written only by an earlier version (now `response_sealed`). */
    responseBody: text('response_body'),
    /** The receiver's answer (it may echo the body) under the verification's data key. */
    responseSealed: bytea('response_sealed'),
    error: text('error'),
    outcome: text('outcome', { enum: ['delivered', 'retry', 'completed', 'failed'] }).notNull(),
    detail: jsonb('detail'),
  },
  (t) => [
    index('webhook_attempts_event_idx').on(t.eventId, t.attempt),
    index('webhook_attempts_unsealed_idx')
      .on(t.id)
      .where(sql`${t.responseBody} is not null`),
  ],
);

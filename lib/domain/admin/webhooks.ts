/**
 * A workspace's webhooks in the admin area (issue 15): its URL (the settings' schema and SSRF checks), a test
 * event, the delivery log (every event with each attempt, newest first, keyset pages, failures alone) and
 * redelivery. Owners of the workspace and operators ('webhooks.manage').
 */
import { and, desc, eq, inArray, type SQL } from 'drizzle-orm';
import { webhookAttempts, webhookEvents, verifications } from '@/lib/db/schema';
import type { Db, DbOrTx } from '@/lib/db/client';
import { audit } from '../audit/audit';
import { notFound } from '../../core/errors';
import { redeliverFailedWebhooks, redeliverWebhook, sendTestWebhook } from '../webhooks/deliver';
import { updateWorkspaceSettings } from '../workspaces';
import { actorId, assertCan, type Actor } from './access';
import { afterCursor, cursorTime, decodeCursor, pageOf } from './cursor';
import { managedWorkspace } from './workspaces';
import { dataKeyRows, keyOpener } from '../personal-data/personal';
import { openWebhookResponse } from '../webhooks/list';

export const DELIVERY_PAGE = 50;
/** How much of a receiver's answer the log shows (the service keeps 1 KiB of it). */
const EXCERPT = 300;

export async function setWebhookUrlAs(db: Db, actor: Actor, input: { workspaceId: string; url: string | null }) {
  const ws = await managedWorkspace(db, actor, input.workspaceId, 'webhooks.manage');
  return updateWorkspaceSettings(db, ws.id, { webhook_url: input.url }, actorId(actor));
}

export async function sendTestEventAs(
  db: Db,
  actor: Actor,
  workspaceId: string,
  deps: Parameters<typeof sendTestWebhook>[2] = {},
) {
  const ws = await managedWorkspace(db, actor, workspaceId, 'webhooks.manage');
  const r = await sendTestWebhook(db, ws.id, deps);
  await audit(db, {
    workspaceId: ws.id,
    actor: actorId(actor),
    action: 'webhook.test_sent',
    data: {
      event: r.id,
      url: r.url,
      key: r.keyId,
      outcome: r.outcome,
      status_code: r.statusCode,
      latency_ms: r.latencyMs,
      error: r.error,
    },
  });
  return r;
}

export type DeliveryFilter = { workspaceId: string; failedOnly?: boolean; cursor?: string | null; limit?: number };

/** The delivery log: events newest first (by created_at, id), each with all its attempts. */
export async function deliveryLog(db: DbOrTx, actor: Actor, f: DeliveryFilter) {
  const ws = await managedWorkspace(db, actor, f.workspaceId, 'webhooks.manage');
  const limit = Math.min(f.limit ?? DELIVERY_PAGE, 200);
  const conds: (SQL | undefined)[] = [eq(webhookEvents.workspaceId, ws.id)];
  if (f.failedOnly) conds.push(eq(webhookEvents.state, 'failed'));
  const c = decodeCursor(f.cursor);
  if (c) conds.push(afterCursor(webhookEvents.createdAt, webhookEvents.id, c, 'desc'));
  const events = await db
    .select({
      id: webhookEvents.id,
      verificationId: webhookEvents.verificationId,
      externalId: verifications.externalId,
      mode: verifications.mode,
      status: webhookEvents.status,
      state: webhookEvents.state,
      attempts: webhookEvents.attempts,
      nextAttemptAt: webhookEvents.nextAttemptAt,
      createdAt: webhookEvents.createdAt,
      cursorAt: cursorTime(webhookEvents.createdAt),
    })
    .from(webhookEvents)
    .innerJoin(verifications, eq(verifications.id, webhookEvents.verificationId))
    .where(and(...conds))
    .orderBy(desc(webhookEvents.createdAt), desc(webhookEvents.id))
    .limit(limit + 1);
  const { items: page, next } = pageOf(events, limit);
  const attempts = page.length
    ? await db
        .select({
          eventId: webhookAttempts.eventId,
          attempt: webhookAttempts.attempt,
          startedAt: webhookAttempts.startedAt,
          statusCode: webhookAttempts.statusCode,
          latencyMs: webhookAttempts.latencyMs,
          outcome: webhookAttempts.outcome,
          error: webhookAttempts.error,
          id: webhookAttempts.id,
          responseBody: webhookAttempts.responseBody,
          responseSealed: webhookAttempts.responseSealed,
          keyId: webhookAttempts.keyId,
        })
        .from(webhookAttempts)
        .where(
          inArray(
            webhookAttempts.eventId,
            page.map((e) => e.id),
          ),
        )
        .orderBy(webhookAttempts.eventId, webhookAttempts.startedAt)
    : [];
  // The receivers' answers are kept under each verification's data key (lib/domain/personal-data/personal.ts).
  const verificationOf = new Map(page.map((e) => [e.id, e.verificationId]));
  const sealed = attempts.filter((a) => a.responseSealed).map((a) => verificationOf.get(a.eventId)!);
  const key = keyOpener(await dataKeyRows(db, sealed));
  return {
    workspace: { id: ws.id, name: ws.name, webhookUrl: ws.webhookUrl },
    events: page.map((e) => ({
      ...e,
      attemptLog: attempts
        .filter((a) => a.eventId === e.id)
        .map(({ responseSealed, responseBody, ...a }) => {
          const text = openWebhookResponse(
            { id: a.id, responseBody, responseSealed },
            responseSealed ? key(e.verificationId) : null,
          );
          return { ...a, responseExcerpt: text ? text.slice(0, EXCERPT) : null };
        }),
    })),
    next,
  };
}

export async function redeliverAs(db: Db, actor: Actor, eventId: string) {
  const [e] = await db
    .select({ workspaceId: webhookEvents.workspaceId })
    .from(webhookEvents)
    .where(eq(webhookEvents.id, String(eventId)));
  if (!e) throw notFound('Webhook event');
  assertCan(actor, 'webhooks.manage', e.workspaceId, 'Webhook event');
  const r = await redeliverWebhook(db, String(eventId));
  await audit(db, {
    workspaceId: e.workspaceId,
    actor: actorId(actor),
    action: 'webhook.redelivered',
    data: { event: eventId },
  });
  return r!;
}

export async function redeliverAllFailedAs(db: Db, actor: Actor, workspaceId: string) {
  const ws = await managedWorkspace(db, actor, workspaceId, 'webhooks.manage');
  const n = await redeliverFailedWebhooks(db, ws.id);
  await audit(db, { workspaceId: ws.id, actor: actorId(actor), action: 'webhook.redelivered', data: { failed: n } });
  return n;
}

import { bigint, index, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { ts } from './columns';


/**
 * Rolling-window request counts, one row per limited key: per-second buckets of the last minute
 * (parallel arrays). Updated only by the SQL function rate_limit_take(), which locks the row.
 */
export const rateLimits = pgTable('rate_limits', {
  key: text('key').primaryKey(),
  seconds: bigint('seconds', { mode: 'number' }).array().notNull(),
  counts: integer('counts').array().notNull(),
});

export const auditLog = pgTable(
  'audit_log',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id'),
    verificationId: text('verification_id'),
    /** Who acted: `key:<id>`, `capture`, `operator`, `admin:<id>`, `system`. */
    actor: text('actor').notNull(),
    action: text('action').notNull(),
    requestId: text('request_id'),
    data: jsonb('data'),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [
    index('audit_log_workspace_idx').on(t.workspaceId, t.createdAt),
    index('audit_log_verification_idx').on(t.verificationId, t.createdAt),
    // The admin audit page's actor filter.
    index('audit_log_actor_idx').on(t.actor, t.createdAt),
  ],
);

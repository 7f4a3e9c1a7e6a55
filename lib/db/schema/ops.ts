import { bigint, index, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { ts } from './columns';
import { bytea } from './verifications';

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
    /**
     * The personal part of `data` (a reviewer's note about the person) under the verification's data key
     * (lib/domain/audit/audit.ts): the entry stays, the note goes with the data.
     */
    dataSealed: bytea('data_sealed'),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [
    // Notes an earlier version wrote in the clear (lib/domain/retention/upgrade.ts seals them).
    index('audit_log_unsealed_note_idx')
      .on(t.id)
      .where(sql`${t.verificationId} is not null and ${t.data} ? 'note' and ${t.data} ->> 'note' is not null`),
    index('audit_log_workspace_idx').on(t.workspaceId, t.createdAt),
    index('audit_log_verification_idx').on(t.verificationId, t.createdAt),
    // The admin audit page's actor filter.
    index('audit_log_actor_idx').on(t.actor, t.createdAt),
  ],
);

/**
 * Failed API signatures (lib/api/signature-failures.ts), one row per counted key: `key:<public key>` and
 * `addr:<public key> <client address>`. Written only by one `insert … on conflict do update … returning`
 * statement, so concurrent requests on any number of server processes count exactly; a window of one minute
 * starts at the first failure and the next failure after it starts a new one.
 */
export const apiSignatureFailures = pgTable('api_signature_failures', {
  key: text('key').primaryKey(),
  failures: integer('failures').notNull(),
  windowStartedAt: bigint('window_started_at', { mode: 'number' }).notNull(),
});

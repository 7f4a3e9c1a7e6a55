import { date, integer, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { ts } from './columns';
import { workspaces } from './workspaces';

/**
 * The usage page's daily roll-up (lib/domain/usage/days.ts, job `usage-rollup`). A closed UTC day never
 * changes: verifications are counted by the day they were created, decisions by the day they were made, and
 * neither timestamp is written again. So each closed day of a workspace is totalled once, and the page reads
 * at most 365 small rows per mode, plus the days since the last roll-up live from `verifications`.
 *
 * One row per workspace, mode and day on which something happened.
 */
export const usageDays = pgTable(
  'usage_days',
  {
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    mode: text('mode').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    /** Verifications created that day. */
    created: integer('created').notNull(),
    /** Decisions made that day (verifications that reached a final status): `[status, reason or null, count][]`. */
    decisions: jsonb('decisions').$type<[string, string | null, number][]>().notNull(),
    /**
     * Submit-to-decision times of that day's approvals and declines, for the median: `{ ms: count }`, each time
     * to the tenth of a second (what the CSV shows).
     */
    durations: jsonb('durations').$type<Record<string, number>>().notNull(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.mode, t.day] })],
);

/** How far each workspace's days are rolled up: every day up to and including `rolled_through` is in usage_days. */
export const usageRollups = pgTable('usage_rollups', {
  workspaceId: text('workspace_id')
    .primaryKey()
    .references(() => workspaces.id),
  rolledThrough: date('rolled_through', { mode: 'string' }),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});

/**
 * Keyset pagination: a cursor is the sort key of the last row shown, (time, id), opaque to the page
 * (base64url). Stable under inserts, and each page costs the same however deep it is. The time is
 * Postgres's own text of the timestamp (microseconds: a JavaScript Date would cut it to milliseconds
 * and skip rows of the same millisecond).
 */
import { sql, type AnyColumn } from 'drizzle-orm';
import { UUID_RE } from '../../core/ids';

export type Cursor = { at: string; id: string };

/** Select this beside a row to make its cursor. */
export const cursorTime = (column: AnyColumn) => sql<string>`(${column} at time zone 'UTC')::text`;

export const encodeCursor = (c: Cursor) => Buffer.from(`${c.at}|${c.id}`).toString('base64url');

const PG_UTC = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?$/;

/** A cursor from a URL: null when absent or not one of ours (a tampered cursor starts from the top). */
export function decodeCursor(raw: unknown): Cursor | null {
  if (typeof raw !== 'string' || raw.length > 200) return null;
  const [at, id] = Buffer.from(raw, 'base64url').toString().split('|');
  if (!at || !PG_UTC.test(at) || !id || !(UUID_RE.test(id) || /^[a-z]{2,4}_[0-9a-z]{26}$/.test(id))) return null;
  return { at, id };
}

/** `(column, id) > cursor` (ascending) or `<` (descending), comparing at full precision. */
export const afterCursor = (column: AnyColumn, idColumn: AnyColumn, c: Cursor, direction: 'asc' | 'desc') =>
  direction === 'asc'
    ? sql`(${column}, ${idColumn}) > ((${c.at}::timestamp at time zone 'UTC'), ${c.id})`
    : sql`(${column}, ${idColumn}) < ((${c.at}::timestamp at time zone 'UTC'), ${c.id})`;

/** A page of `limit` rows out of `limit + 1` fetched, and the cursor of the next page when there is one. */
export function pageOf<T extends { id: string; cursorAt: string }>(
  rows: T[],
  limit: number,
): { items: T[]; next: string | null } {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, next: rows.length > limit && last ? encodeCursor({ at: last.cursorAt, id: last.id }) : null };
}

/**
 * Listing a workspace's verifications for reconciliation (GET /v1/verifications, an extension: docs/api.md):
 * what changed since a time, by external_id and status, oldest change first, in pages a cursor continues.
 * Keyset pagination on (updated_at, id): stable while rows change, each page the same cost however deep
 * (indexes verifications_sync_idx and verifications_external_sync_idx).
 */
import { and, asc, eq, gte, inArray, sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import {
  consentRecords,
  VERIFICATION_STATUSES,
  verifications,
  type VerificationRow,
  type VerificationStatus,
} from '@/lib/db/schema';
import type { DbOrTx } from '@/lib/db/client';
import { validationError } from '../../core/errors';
import { UUID_RE } from '../../core/ids';
import { openVerifications } from '../personal-data/personal';
import type { ConsentRecord } from '../consent';
import type { Scope } from './get';

export const LIST_LIMIT_DEFAULT = 50;
export const LIST_LIMIT_MAX = 100;

/** The query of GET /v1/verifications: each parameter at most once; unknown ones refused. */
export const listVerificationsQuery = z.strictObject({
  external_id: z.string().min(1, 'Must be 1 to 255 characters.').max(255, 'Must be 1 to 255 characters.').optional(),
  status: z
    .string()
    .transform((s) => s.split(','))
    .pipe(
      z
        .array(z.enum(VERIFICATION_STATUSES, { error: `Each must be one of ${VERIFICATION_STATUSES.join(', ')}.` }))
        .max(VERIFICATION_STATUSES.length),
    )
    .optional(),
  updated_since: z.iso
    .datetime({ offset: true, error: 'Must be an ISO 8601 time with a time zone, e.g. 2026-11-22T10:00:00Z.' })
    .optional(),
  limit: z
    .string()
    .regex(/^\d{1,3}$/, `Must be an integer from 1 to ${LIST_LIMIT_MAX}.`)
    .transform(Number)
    .pipe(
      z
        .number()
        .int()
        .min(1, `Must be an integer from 1 to ${LIST_LIMIT_MAX}.`)
        .max(LIST_LIMIT_MAX, `Must be an integer from 1 to ${LIST_LIMIT_MAX}.`),
    )
    .optional(),
  cursor: z.string().max(200, 'Not a cursor of this list.').optional(),
});
export type ListVerificationsQuery = z.infer<typeof listVerificationsQuery>;

export type ListVerificationsInput = Scope & {
  externalId?: string;
  statuses?: VerificationStatus[];
  updatedSince?: Date;
  limit?: number;
  /** The opaque `next_cursor` of the previous page. */
  cursor?: string;
};

type Cursor = { at: string; id: string };
const PG_UTC = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?$/;

/** A cursor is the (updated_at, id) of the last row of a page: Postgres's own text of the time, to the microsecond. */
const encodeCursor = (c: Cursor) => Buffer.from(`${c.at}|${c.id}`).toString('base64url');
function decodeCursor(raw: string): Cursor {
  const [at, id, more] = Buffer.from(raw, 'base64url').toString().split('|');
  if (more !== undefined || !at || !PG_UTC.test(at) || !id || !UUID_RE.test(id))
    throw validationError({ cursor: ['Not a cursor of this list.'] });
  return { at, id };
}

export type ListedVerification = { verification: VerificationRow; consent: ConsentRecord | undefined };

export async function listVerifications(
  db: DbOrTx,
  input: ListVerificationsInput,
): Promise<{ items: ListedVerification[]; nextCursor: string | null }> {
  const limit = input.limit ?? LIST_LIMIT_DEFAULT;
  const where: SQL[] = [eq(verifications.workspaceId, input.workspaceId), eq(verifications.mode, input.mode)];
  if (input.externalId !== undefined) where.push(eq(verifications.externalId, input.externalId));
  if (input.statuses?.length) where.push(inArray(verifications.status, [...new Set(input.statuses)]));
  if (input.updatedSince) where.push(gte(verifications.updatedAt, input.updatedSince));
  if (input.cursor !== undefined) {
    const c = decodeCursor(input.cursor);
    where.push(
      sql`(${verifications.updatedAt}, ${verifications.id}) > ((${c.at}::timestamp at time zone 'UTC'), ${c.id})`,
    );
  }
  const rows = await db
    .select({ v: verifications, cursorAt: sql<string>`(${verifications.updatedAt} at time zone 'UTC')::text` })
    .from(verifications)
    .where(and(...where))
    .orderBy(asc(verifications.updatedAt), asc(verifications.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  const nextCursor = rows.length > limit && last ? encodeCursor({ at: last.cursorAt, id: last.v.id }) : null;
  if (page.length === 0) return { items: [], nextCursor };

  const ids = page.map((r) => r.v.id);
  // The latest consent record of each; the personal fields of each opened (one query for their data keys).
  const consents = await db
    .selectDistinctOn([consentRecords.verificationId])
    .from(consentRecords)
    .where(inArray(consentRecords.verificationId, ids))
    .orderBy(consentRecords.verificationId, sql`${consentRecords.acceptedAt} desc`);
  const byVerification = new Map(consents.map((c) => [c.verificationId, c]));
  const opened = await openVerifications(
    db,
    page.map((r) => r.v),
  );
  return { items: opened.map((v) => ({ verification: v, consent: byVerification.get(v.id) })), nextCursor };
}

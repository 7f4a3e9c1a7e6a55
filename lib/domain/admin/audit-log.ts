/**
 * The audit page: entries of the workspaces the actor may audit (operators: all, including the
 * workspace-less admin entries such as sign-ins), filtered by actor, verification and action, newest
 * first, keyset-paginated.
 */
import { and, desc, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { adminUsers, auditLog } from '@/lib/db/schema';
import type { DbOrTx } from '@/lib/db/client';
import { parseOrThrow } from '../../core/errors';
import { inScope, scopeFor, type Actor } from './access';
import { afterCursor, cursorTime, decodeCursor, pageOf } from './cursor';
import { openAuditEntries } from '../personal-data/personal';

/** The actions written today, for the filter's list (any other action name can still be typed in the URL). */
export const AUDIT_ACTIONS = [
  'verification.created',
  'consent.accepted',
  'media.uploaded',
  'media.rejected',
  'verification.submitted',
  'verification.decided',
  'verification.viewed',
  'media.viewed',
  'blocklist.added',
  'blocklist.removed',
  'verification.data_erased',
  'verification.exported',
  'workspace.created',
  'workspace.settings_updated',
  'consent.published',
  'admin.created',
  'admin.signed_in',
  'admin.sign_in_failed',
  'admin.second_factor_passed',
  'admin.signed_out',
  'admin.signed_out_everywhere',
  'admin.second_factor_enabled',
  'admin.second_factor_disabled',
  'admin.second_factor_reset',
  'admin.recovery_codes_regenerated',
  'admin.password_changed',
  'admin.role_changed',
  'admin.membership_set',
  'admin.membership_removed',
  // The owners' pages (issue 15).
  'key.created',
  'key.activated',
  'key.deleted',
  'webhook.test_sent',
  'webhook.redelivered',
  'admin.invited',
  'admin.invite_revoked',
  'admin.invite_accepted',
] as const;

export const AUDIT_PAGE = 100;
const blank = (v: unknown) => (v === '' || v === null ? undefined : v);

export const auditFilters = z.object({
  actor: z.preprocess(blank, z.string().trim().max(320).optional()),
  verification: z.preprocess(blank, z.string().trim().toLowerCase().max(64).optional()),
  action: z.preprocess(
    blank,
    z
      .string()
      .regex(/^[a-z_.]{1,64}$/, 'An action name, e.g. verification.decided.')
      .optional(),
  ),
  workspace: z.preprocess(blank, z.string().max(64).optional()),
  cursor: z.preprocess(blank, z.string().max(200).optional()),
});

export async function searchAudit(db: DbOrTx, actor: Actor, raw: unknown, limit = AUDIT_PAGE) {
  const f = parseOrThrow(auditFilters, raw, 'The filter has invalid fields.');
  const scope = scopeFor(actor, 'audit.read', f.workspace);
  // An admin is named by email in the filter; the log names them admin:<id>.
  let actorValue = f.actor;
  if (f.actor?.includes('@')) {
    const [u] = await db
      .select({ id: adminUsers.id })
      .from(adminUsers)
      .where(eq(adminUsers.email, f.actor.toLowerCase()));
    actorValue = u ? `admin:${u.id}` : f.actor;
  }
  const after = decodeCursor(f.cursor);
  const rows = await db
    .select({ e: auditLog, email: adminUsers.email, cursorAt: cursorTime(auditLog.createdAt) })
    .from(auditLog)
    .leftJoin(adminUsers, eq(auditLog.actor, sql`'admin:' || ${adminUsers.id}`))
    .where(
      and(
        // Operators' unfiltered view includes workspace-less entries too (sign-ins, admin changes).
        inScope(scope, auditLog.workspaceId),
        actorValue ? eq(auditLog.actor, actorValue) : undefined,
        f.verification ? eq(auditLog.verificationId, f.verification) : undefined,
        f.action ? eq(auditLog.action, f.action) : undefined,
        after ? afterCursor(auditLog.createdAt, auditLog.id, after, 'desc') : undefined,
      ),
    )
    .orderBy(desc(auditLog.createdAt), desc(auditLog.id))
    .limit(limit + 1);
  // Notes about a person are kept under the verification's data key (lib/domain/audit/audit.ts): opened for the page.
  const opened = await openAuditEntries(
    db,
    rows.map((r) => r.e),
  );
  return {
    filters: f,
    ...pageOf(
      rows.map((r, i) => ({ ...opened[i], who: r.email ?? r.e.actor, cursorAt: r.cursorAt })),
      limit,
    ),
  };
}

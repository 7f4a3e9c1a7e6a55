/**
 * A reviewer's decision from the admin area: the same operation as `npm run ops -- verification:decide`
 * (lib/domain/verifications/review.ts, which writes the webhook event through the state machine's outbox), after
 * the membership check. Two reviewers deciding one case at once: the row lock and the conditional
 * update let exactly one through; the other gets INVALID_STATUS with who decided, what and when (details.decided_*).
 */
import { and, desc, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { adminUsers, auditLog, verifications } from '@/lib/db/schema';
import type { Db, DbOrTx } from '@/lib/db/client';
import { DomainError, notFound, parseOrThrow } from '../../core/errors';
import { UUID_RE } from '../../core/ids';
import { DECLINE_REASONS, RESUBMIT_REASONS } from '../transitions/reasons';
import { decideReview } from '../verifications/review';
import { actorId, assertCan, type Actor } from './access';

export const decisionInput = z.discriminatedUnion('status', [
  z.object({ status: z.literal('approved'), note: z.string().trim().max(2000).optional() }),
  z.object({
    status: z.literal('declined'),
    reason: z.enum(DECLINE_REASONS, 'Choose a reason from the list.'),
    note: z.string().trim().max(2000).optional(),
  }),
  z.object({
    status: z.literal('resubmission_requested'),
    reason: z.enum(RESUBMIT_REASONS, 'Choose a reason from the list.'),
    note: z.string().trim().max(2000).optional(),
  }),
]);

export type DecidedBy = { actor: string; who: string; status: string | null; reason: string | null; at: Date };

/** Who made the last decision on a verification (an admin by email, the operator CLI, the pipeline). */
export async function lastDecision(db: DbOrTx, verificationId: string): Promise<DecidedBy | null> {
  const [e] = await db
    .select({ actor: auditLog.actor, data: auditLog.data, at: auditLog.createdAt, email: adminUsers.email })
    .from(auditLog)
    .leftJoin(adminUsers, eq(auditLog.actor, sql`'admin:' || ${adminUsers.id}`))
    .where(and(eq(auditLog.verificationId, verificationId), eq(auditLog.action, 'verification.decided')))
    .orderBy(desc(auditLog.createdAt), desc(auditLog.id))
    .limit(1);
  if (!e) return null;
  const d = (e.data ?? {}) as { status?: string; reason?: string | null };
  const who =
    e.email ??
    (e.actor === 'operator'
      ? 'an operator (command line)'
      : e.actor === 'pipeline'
        ? 'the automated pipeline'
        : e.actor);
  return { actor: e.actor, who, status: d.status ?? null, reason: d.reason ?? null, at: e.at };
}

export async function decideCase(
  db: Db,
  actor: Actor,
  input: { verificationId: string; decision: unknown; requestId?: string },
) {
  const id = String(input.verificationId).toLowerCase();
  if (!UUID_RE.test(id)) throw notFound('Verification');
  const [v] = await db
    .select({ workspaceId: verifications.workspaceId, mode: verifications.mode, status: verifications.status })
    .from(verifications)
    .where(eq(verifications.id, id));
  if (!v) throw notFound('Verification');
  assertCan(actor, 'case.decide', v.workspaceId, 'Verification');
  const d = parseOrThrow(decisionInput, input.decision, 'The decision has invalid fields.');
  if (d.status === 'resubmission_requested' && v.mode !== 'test') {
    throw new DomainError('VALIDATION_ERROR', 'A resubmission can be requested in test mode only.', {
      fields: { status: ['Test mode only.'] },
    });
  }
  try {
    return await decideReview(db, {
      verificationId: id,
      status: d.status,
      reason: 'reason' in d ? d.reason : undefined,
      note: d.note || undefined,
      actor: actorId(actor),
      requestId: input.requestId,
    });
  } catch (e) {
    if (e instanceof DomainError && e.code === 'INVALID_STATUS') {
      const by = await lastDecision(db, id);
      throw new DomainError(
        'INVALID_STATUS',
        by ? `Already decided by ${by.who}.` : 'This case is no longer waiting for review.',
        {
          status: (e.details as { status?: string })?.status ?? null,
          decided_by: by?.who ?? null,
          decided_status: by?.status ?? null,
          decided_reason: by?.reason ?? null,
          decided_at: by?.at.toISOString() ?? null,
        },
      );
    }
    throw e;
  }
}

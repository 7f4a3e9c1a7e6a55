/**
 * The state machine of docs/api.md "Statuses and transitions", as data. One function applies a move:
 * it finds the row for (current status, trigger), updates conditionally on the expected status, and
 * refuses anything else with INVALID_STATUS, never a silent no-op. It writes the verification only: whether the
 * move fires a webhook is in its row of TRANSITIONS (`webhook`), and each caller writes that webhook itself, in
 * the same transaction, right after the move (`enqueueTransitionWebhook`, lib/domain/webhooks/outbox.ts), where a
 * reader of the caller sees it (docs/architecture.md "No hidden work").
 */
import { and, eq } from 'drizzle-orm';
import { verifications, type VerificationRow, type VerificationStatus } from '@/lib/db/schema';
import type { DbOrTx } from '@/lib/db/client';
import { DomainError, notFound } from '../../core/errors';
import { sealResult } from '../personal-data/result-fields';
import { afterCommit } from '@/lib/db/after-commit';
import { metrics } from '../../core/observability/metrics';

export type Trigger =
  | 'media_uploaded'
  | 'submit'
  | 'submit_test_mode'
  | 'expiry_timer'
  | 'abandon_timer'
  | 'pipeline_approve'
  | 'pipeline_decline'
  | 'pipeline_resubmit'
  | 'pipeline_review'
  | 'admin_approve'
  | 'admin_decline'
  | 'admin_resubmit'
  | 'wallet_proof'
  | 'wallet_approve'
  | 'wallet_decline'
  | 'wallet_review'
  | 'data_erasure';

export type Transition = {
  from: VerificationStatus;
  trigger: Trigger;
  to: VerificationStatus;
  /** Fires a webhook (docs/webhooks.md): the caller of applyTransition writes it (enqueueTransitionWebhook). */
  webhook: boolean;
  /** Only in test mode (an admin may request resubmission there). */
  testOnly?: boolean;
};

export const TERMINAL: ReadonlySet<VerificationStatus> = new Set(['approved', 'declined', 'abandoned', 'expired']);

export const TRANSITIONS: readonly Transition[] = [
  { from: 'created', trigger: 'media_uploaded', to: 'started', webhook: false },
  { from: 'created', trigger: 'expiry_timer', to: 'expired', webhook: true },
  { from: 'started', trigger: 'media_uploaded', to: 'started', webhook: false },
  { from: 'started', trigger: 'submit', to: 'submitted', webhook: false },
  // Test mode: the automated pipeline is skipped and a submission waits for a human.
  { from: 'started', trigger: 'submit_test_mode', to: 'review', webhook: true },
  { from: 'started', trigger: 'abandon_timer', to: 'abandoned', webhook: true },
  { from: 'submitted', trigger: 'pipeline_approve', to: 'approved', webhook: true },
  { from: 'submitted', trigger: 'pipeline_decline', to: 'declined', webhook: true },
  { from: 'submitted', trigger: 'pipeline_resubmit', to: 'resubmission_requested', webhook: true },
  { from: 'submitted', trigger: 'pipeline_review', to: 'review', webhook: true },
  { from: 'resubmission_requested', trigger: 'media_uploaded', to: 'started', webhook: false },
  // docs/api.md: a resubmission with no new upload for 7 days is abandoned.
  { from: 'resubmission_requested', trigger: 'abandon_timer', to: 'abandoned', webhook: true },
  { from: 'review', trigger: 'admin_approve', to: 'approved', webhook: true },
  { from: 'review', trigger: 'admin_decline', to: 'declined', webhook: true },
  { from: 'review', trigger: 'admin_resubmit', to: 'resubmission_requested', webhook: true, testOnly: true },
  // Extension (docs/wallet.md "What a proof does to a verification"): a valid wallet proof is a submission (one
  // attempt) from any status that takes media, decided in the same transaction by its signed claim; in test mode a
  // person decides, as for every submission there.
  ...(['created', 'started', 'resubmission_requested'] as const).map((from): Transition => ({
    from,
    trigger: 'wallet_proof',
    to: 'submitted',
    webhook: false,
  })),
  { from: 'submitted', trigger: 'wallet_approve', to: 'approved', webhook: true },
  { from: 'submitted', trigger: 'wallet_decline', to: 'declined', webhook: true },
  { from: 'submitted', trigger: 'wallet_review', to: 'review', webhook: true },
  // Extension (docs/api.md "Data retention and erasure"): erasing the data of a case in progress ends it; with
  // its photos gone it cannot be decided. A decided case keeps its status.
  ...(['created', 'started', 'submitted', 'resubmission_requested', 'review'] as const).map((from): Transition => ({
    from,
    trigger: 'data_erasure',
    to: 'abandoned',
    webhook: true,
  })),
];

/** The moves that decide a case, and who decides (`verifications_decided_total{by}`). */
const DECIDED_BY: Partial<Record<Trigger, 'pipeline' | 'reviewer' | 'wallet'>> = {
  pipeline_approve: 'pipeline',
  pipeline_decline: 'pipeline',
  pipeline_resubmit: 'pipeline',
  pipeline_review: 'pipeline',
  admin_approve: 'reviewer',
  admin_decline: 'reviewer',
  admin_resubmit: 'reviewer',
  // A verified wallet proof decides at once (docs/wallet.md); in test mode it goes to review like a submission.
  wallet_approve: 'wallet',
  wallet_decline: 'wallet',
  wallet_review: 'wallet',
};

export function findTransition(from: VerificationStatus, trigger: Trigger, mode: 'test' | 'live') {
  return TRANSITIONS.find((t) => t.from === from && t.trigger === trigger && (!t.testOnly || mode === 'test'));
}

export type TransitionPatch = Partial<
  Pick<
    VerificationRow,
    'reason' | 'result' | 'duplicateCheck' | 'attemptsUsed' | 'submittedAt' | 'startedAt' | 'stepUp'
  >
>;

/**
 * Applies `trigger` to the verification. The update is conditional on the status read, so of two
 * racing moves exactly one wins and the other gets INVALID_STATUS.
 */
export async function applyTransition(
  outer: DbOrTx,
  input: { verificationId: string; trigger: Trigger; patch?: TransitionPatch; now?: Date },
): Promise<{ row: VerificationRow; transition: Transition }> {
  // Atomic on its own (a savepoint inside the caller's transaction).
  return outer.transaction((db) => applyIn(db, input));
}

async function applyIn(
  db: DbOrTx,
  input: { verificationId: string; trigger: Trigger; patch?: TransitionPatch; now?: Date },
) {
  const [current] = await db.select().from(verifications).where(eq(verifications.id, input.verificationId));
  if (!current) throw notFound('Verification');
  const t = findTransition(current.status, input.trigger, current.mode);
  if (!t) {
    throw new DomainError(
      'INVALID_STATUS',
      `Cannot ${input.trigger.replace(/_/g, ' ')} a verification in status ${current.status}.`,
      {
        status: current.status,
      },
    );
  }
  const now = input.now ?? new Date();
  const set: Partial<typeof verifications.$inferInsert> = {
    ...input.patch,
    status: t.to,
    updatedAt: now,
  };
  // A result's personal fields are stored only encrypted under the verification's data key.
  if (input.patch && 'result' in input.patch) Object.assign(set, await sealResult(db, current.id, input.patch.result));
  if (t.to !== current.status) set.statusChangedAt = now;
  if (TERMINAL.has(t.to)) set.completedAt = now;
  if (t.to === 'started' && !current.startedAt) set.startedAt = now;
  // docs/api.md: a reason goes with declined or resubmission_requested; an upload that reopens the case
  // (resubmission_requested → started) clears it.
  if (t.to === 'started') set.reason = null;
  const [row] = await db
    .update(verifications)
    .set(set)
    .where(and(eq(verifications.id, current.id), eq(verifications.status, current.status)))
    .returning();
  const by = DECIDED_BY[t.trigger];
  // Counted once the move has committed (a rolled-back decision was never made).
  if (row && by) {
    // Reasons are codes from a fixed list (lib/domain/verifications/review.ts, the pipeline's checks); anything else is not a label.
    const reason = row.reason === null ? 'none' : /^[a-z_]{1,40}$/.test(row.reason) ? row.reason : 'other';
    const labels = { flow: row.flow, mode: row.mode, status: row.status, reason, by };
    await afterCommit(() => metrics().verificationsDecided.inc(labels));
  }
  if (!row) {
    throw new DomainError('INVALID_STATUS', 'The verification changed while this request ran; read it again.', {
      status: (
        await db.select({ s: verifications.status }).from(verifications).where(eq(verifications.id, current.id))
      )[0]?.s,
    });
  }
  return { row, transition: t };
}

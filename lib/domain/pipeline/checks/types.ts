/**
 * The shape every pipeline check shares. A check reads the evidence of one submission and answers either
 * `continue` (nothing to decide here; the next check runs) or a decision with its reason; both carry what the
 * check measured, which the audit log and reviewers see. decide() (../decide.ts) runs them in order.
 */
import type { FaceMeasure } from '../../media/types';
import type { AamvaData } from '../../documents/aamva';
import type { MrzData } from '../../documents/mrz';
import type { ChallengeOutcome } from '../../../db/schema/liveness-challenge';
import type { DeclineReason, ReasonCode, ResubmitReason } from '../../transitions/reasons';
import type { PipelineCheckId } from './list';

export type Outcome = 'approve' | 'decline' | 'resubmit' | 'review';

export type DocumentRead =
  { source: 'mrz'; mrz: MrzData; corrected: boolean } | { source: 'pdf417'; aamva: AamvaData } | null;

export type Evidence = {
  flow: 'age' | 'kyc';
  checkMethod: 'estimation' | 'document_verification' | null;
  /** Age / estimation stepped up to a document by an earlier attempt: decided by the document from then on (absent: no). */
  stepUp?: 'document' | null;
  /** The workspace's answer to an estimate that cannot decide: a person's review (absent: the default), or a step-up to a document. */
  estimationFallback?: 'review' | 'document';
  ageThreshold: number;
  selfie: FaceMeasure | null;
  /** documents only */
  document?: {
    type: 'passport' | 'id_card' | 'driving_licence';
    portrait: FaceMeasure | null;
    read: DocumentRead;
  };
  blocklist: { id: string; similarity: number } | null;
  blocklistThreshold: number;
  /** the closest selfie of another verification in the workspace */
  otherCapture: { verificationId: string; similarity: number } | null;
  /**
   * Active liveness (the hosted page's head-turn challenge): whether this submission needs one (the workspace
   * requires it and the selfie came through the hosted page), and the latest challenge's outcome if any.
   */
  activeLiveness?: {
    required: boolean;
    challenge: ChallengeOutcome | null;
    selfieSimilarity: number | null;
    selfieAfterChallengeMs: number | null;
  };
};

export type Measured = Record<string, unknown>;

export type CheckResult =
  | { status: 'continue'; measured: Measured }
  | {
      status: 'decided';
      outcome: Outcome;
      reason: ReasonCode | null;
      result: Record<string, unknown> | null;
      measured: Measured;
    };

/** `name` is the check's row of PIPELINE_CHECKS (./list.ts): a check missing there does not compile. */
export type Check = { name: PipelineCheckId; run: (ev: Evidence, now: Date) => CheckResult };

export const next = (measured: Measured = {}): CheckResult => ({ status: 'continue', measured });
/** The reason a decision of this outcome may carry: a decline's or a resubmission's (lib/domain/transitions/reasons.ts). */
type ReasonFor<O extends Outcome> = O extends 'decline' ? DeclineReason : O extends 'resubmit' ? ResubmitReason : never;

export const decided = <O extends Outcome>(
  outcome: O,
  reason: ReasonFor<O> | null,
  measured: Measured = {},
  result: Record<string, unknown> | null = null,
): CheckResult => ({
  status: 'decided',
  outcome,
  reason,
  result,
  measured,
});

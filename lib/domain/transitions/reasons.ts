/**
 * Every reason code a decision can carry, in one table: the status it goes with, the admin area's label, and the
 * meaning integrators read (docs/api.md "Decision reasons" and docs/webhooks.md "Reason codes" show this table,
 * and a test holds them to it). The pipeline, reviewers' decisions, the admin area and the OpenAPI read it; a new
 * reason is one entry here.
 */

export type ReasonDefinition = {
  status: 'declined' | 'resubmission_requested';
  /** what a reviewer reads in the admin area */
  label: string;
  /** what an integrator reads in docs/api.md and docs/webhooks.md */
  meaning: string;
  /** not in the core interface's table: this implementation's own */
  extension: boolean;
};

export const REASONS = {
  blocklist_match: {
    status: 'declined',
    label: 'Face on the blocklist',
    meaning: "the face matches one an admin put on the workspace's blocklist",
    extension: false,
  },
  fraud_detected: {
    status: 'declined',
    label: 'Fraud detected (screen or printed photo)',
    meaning: 'automated fraud signals (a screen or printed photo, a replayed picture)',
    extension: false,
  },
  identity_mismatch: {
    status: 'declined',
    label: 'Selfie and document are different people',
    meaning: "the selfie does not match the document's photo",
    extension: false,
  },
  max_attempts_exceeded: {
    status: 'declined',
    label: 'All 5 attempts used',
    meaning: 'the 5 submissions are used; a new verification is needed',
    extension: false,
  },
  age_below_threshold: {
    status: 'declined',
    label: 'Under the age threshold',
    meaning:
      "the whole estimated age range (or the document's age, or a wallet's `age_over_NN`) is under the workspace's `age_threshold`",
    extension: true,
  },
  document_expired: {
    status: 'declined',
    label: 'Document expired',
    meaning: "the document's expiry date has passed",
    extension: true,
  },
  selfie_quality: {
    status: 'resubmission_requested',
    label: 'Selfie unusable (blur, light, face covered)',
    meaning: 'blurry, too dark or bright, face occluded',
    extension: false,
  },
  document_quality: {
    status: 'resubmission_requested',
    label: 'Document unreadable',
    meaning: 'the document is unreadable, blurry or poorly lit',
    extension: false,
  },
  liveness_failed: {
    status: 'resubmission_requested',
    label: 'Liveness check failed',
    meaning: 'the liveness check did not pass',
    extension: false,
  },
  processing_error: {
    status: 'resubmission_requested',
    label: 'Processing error (safe to retry)',
    meaning: 'an internal pipeline error, safe to retry',
    extension: false,
  },
  document_required: {
    status: 'resubmission_requested',
    label: 'ID document asked for (the age estimate could not decide)',
    meaning:
      'the age estimate could not decide and the workspace steps up to an ID document: upload one and submit again',
    extension: true,
  },
} as const satisfies Record<string, ReasonDefinition>;

export type ReasonCode = keyof typeof REASONS;
/** The reasons that go with one status. */
export type ReasonOf<S extends ReasonDefinition['status']> = {
  [K in ReasonCode]: (typeof REASONS)[K]['status'] extends S ? K : never;
}[ReasonCode];
export type DeclineReason = ReasonOf<'declined'>;
export type ResubmitReason = ReasonOf<'resubmission_requested'>;

const codesOf = <S extends ReasonDefinition['status']>(status: S) =>
  (Object.keys(REASONS) as ReasonCode[]).filter((r) => REASONS[r].status === status) as [ReasonOf<S>, ...ReasonOf<S>[]];

/** In the table's order (docs/api.md's). */
export const REASON_CODES = Object.keys(REASONS) as [ReasonCode, ...ReasonCode[]];
export const DECLINE_REASONS = codesOf('declined');
export const RESUBMIT_REASONS = codesOf('resubmission_requested');

export const isReasonCode = (r: string): r is ReasonCode => Object.hasOwn(REASONS, r);
/** The admin area's words for a reason; a code this table does not know (from an older version) as its words. */
export const reasonLabel = (r: string | null | undefined) =>
  r ? (isReasonCode(r) ? REASONS[r].label : r.replace(/_/g, ' ')) : '';

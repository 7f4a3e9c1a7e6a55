/**
 * The rules of a verification's life that several operations apply, written once: which media a
 * submission needs, how many attempts it has, and in which statuses each action is allowed (read off the
 * state machine's table, so the two cannot disagree).
 */
import type { VerificationStatus } from '@/lib/db/schema';
import type { DeclineReason, ResubmitReason } from './reasons';
import { TRANSITIONS, type Trigger } from './state-machine';

/** docs/api.md "Attempts": at most 5 submissions per verification. */
export const MAX_SUBMISSION_ATTEMPTS = 5;

export const attemptsRemaining = (v: { attemptsUsed: number }) => Math.max(0, MAX_SUBMISSION_ATTEMPTS - v.attemptsUsed);

/**
 * docs/api.md: after the 5th submission, an outcome that would be `resubmission_requested` becomes
 * `declined` with this reason (a new verification is then needed).
 */
export const attemptsExhausted = (v: { attemptsUsed: number }) => v.attemptsUsed >= MAX_SUBMISSION_ATTEMPTS;
export const ATTEMPTS_EXHAUSTED_REASON = 'max_attempts_exceeded' satisfies DeclineReason;

/**
 * Extension (docs/api.md "Step-up to a document"): the reason of the `resubmission_requested` that asks an Age /
 * estimation verification for an ID document, when its estimate could not decide and the workspace's
 * `estimation_fallback` is `document`.
 */
export const STEP_UP_REASON = 'document_required' satisfies ResubmitReason;

/** The statuses from which `trigger` may move a verification (test-mode-only moves included). */
export function statusesAllowing(trigger: Trigger): ReadonlySet<VerificationStatus> {
  return new Set(TRANSITIONS.filter((t) => t.trigger === trigger).map((t) => t.from));
}

/** docs/api.md: upload is allowed in created, started and resubmission_requested. */
export const UPLOAD_STATUSES = statusesAllowing('media_uploaded');
/**
 * Submit is accepted from `started`, and from `created` only to be told what is missing (a verification
 * without media is always missing some): docs/api.md's MISSING_REQUIRED_MEDIA comes before INVALID_STATUS.
 */
export const SUBMIT_STATUSES: ReadonlySet<VerificationStatus> = new Set(['created', ...statusesAllowing('submit')]);
/** Where a wallet's age proof is taken (docs/wallet.md): wherever media could still be uploaded. */
export const WALLET_PROOF_STATUSES = statusesAllowing('wallet_proof');
/** A case in progress: erasing its data abandons it (every other status keeps its status). */
export const ERASURE_ABANDONS = statusesAllowing('data_erasure');

export type RequiredMedia = 'selfie' | 'document_front' | 'document_back';

type FlowOf = { flow: 'age' | 'kyc'; checkMethod: string | null; stepUp: string | null };

/**
 * docs/api.md "Required media": documents for KYC and for Age / document_verification; and for an
 * Age / estimation verification that stepped up to a document (docs/api.md "Step-up to a document"), which
 * from then on needs what document_verification needs: the front, and the back unless a passport.
 */
export const needsDocument = (v: FlowOf) =>
  v.flow === 'kyc' || v.checkMethod === 'document_verification' || v.stepUp === 'document';

/** What a submission still lacks; `uploaded` newest first (the newest upload per side counts; a passport needs its front only). */
export function missingMedia(
  v: FlowOf,
  uploaded: { type: string; side: string | null; documentType: string | null }[],
): RequiredMedia[] {
  const missing: RequiredMedia[] = [];
  if (!uploaded.some((m) => m.type === 'selfie')) missing.push('selfie');
  if (!needsDocument(v)) return missing;
  const front = uploaded.find((m) => m.type === 'document' && m.side === 'front');
  const back = uploaded.find((m) => m.type === 'document' && m.side === 'back');
  if (!front) missing.push('document_front');
  if (!back && front?.documentType !== 'passport') missing.push('document_back');
  return missing;
}

/** The newest upload of each kind (`uploaded` newest first): what a submission hands to the pipeline. */
export function submittedMedia(
  uploaded: { id: string; type: string; side: string | null }[],
): Partial<Record<RequiredMedia, string>> {
  const out: Partial<Record<RequiredMedia, string>> = {};
  for (const m of uploaded) {
    const key: RequiredMedia = m.type === 'selfie' ? 'selfie' : m.side === 'back' ? 'document_back' : 'document_front';
    out[key] ??= m.id;
  }
  return out;
}

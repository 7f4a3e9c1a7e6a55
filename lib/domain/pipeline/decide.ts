/**
 * The decision of one submission from its evidence: a pure function over the checks in ./checks, each in its own
 * module returning its verdict and what it measured, run in the order of PIPELINE_CHECKS (./checks/list.ts;
 * docs/accuracy.md "How a decision is made: the pipeline"): usable selfie →
 * presentation attack → blocklist → liveness (passive, and the head-turn challenge where required) → the
 * flow's own checks (age estimate, or its step-up to a document; or document read, then expiry, face match and
 * the age on the document).
 * The first check that decides, decides; every measurement up to it is kept for reviewers and the audit log.
 */
import { blocklist } from './checks/blocklist';
import { documentRead } from './checks/document';
import { faceMatchAndDocumentAge } from './checks/face-match';
import { liveness } from './checks/liveness';
import { presentationAttack } from './checks/presentation-attack';
import { ageEstimateOrStepUp } from './checks/step-up';
import { PIPELINE_CHECKS, type PipelineCheckId } from './checks/list';
import type { Check, Evidence, Outcome } from './checks/types';
import type { ReasonCode } from '../transitions/reasons';
import { usableSelfie } from './checks/usable-selfie';

export type { DocumentRead, Evidence, Outcome } from './checks/types';
export { estimationResult } from './checks/age-estimate';

export type Decision = {
  outcome: Outcome;
  reason: ReasonCode | null;
  result: Record<string, unknown> | null;
  /** what each check measured, for reviewers and the audit log */
  checks: Record<string, unknown>;
};

/** The module of each row of PIPELINE_CHECKS (./checks/list.ts). The age estimate runs with its step-up to a document (estimation_fallback = document) when it cannot decide. */
const MODULES: Record<PipelineCheckId, Check> = {
  usable_selfie: usableSelfie,
  presentation_attack: presentationAttack,
  blocklist,
  liveness,
  age_estimate: ageEstimateOrStepUp,
  document: documentRead,
  face_match: faceMatchAndDocumentAge,
};
const listFor = (path: 'estimation' | 'document'): Check[] =>
  PIPELINE_CHECKS.filter((c) => c.path === 'common' || c.path === path).map((c) => MODULES[c.id]);
const ESTIMATION = listFor('estimation');
const DOCUMENT = listFor('document');

type Route = Pick<Evidence, 'flow' | 'checkMethod' | 'stepUp'>;

/**
 * The checks a submission of this flow runs, in order. An Age / estimation verification that stepped up to a
 * document is decided as document_verification is: by the document's date of birth and the face match.
 */
export function checksFor(ev: Route): Check[] {
  return ev.flow === 'age' && ev.checkMethod !== 'document_verification' && ev.stepUp !== 'document'
    ? ESTIMATION
    : DOCUMENT;
}

/**
 * Extension (docs/api.md "Step-up to a document"): where an Age decision took the age from, written into every
 * result of the Age flow as `age_source`: the face estimate, or the document's date of birth. (A digital-wallet
 * proof may add its own value.) KYC decides no age: null.
 */
export function ageSourceOf(ev: Route): 'estimation' | 'document' | null {
  if (ev.flow !== 'age') return null;
  return checksFor(ev) === ESTIMATION ? 'estimation' : 'document';
}

/** `timed`, when given, hears how long each check ran (the pipeline's stage metrics); the decision does not depend on it. */
export function decide(ev: Evidence, now: Date, timed?: (check: string, seconds: number) => void): Decision {
  const checks: Record<string, unknown> = {};
  for (const check of checksFor(ev)) {
    const started = timed ? performance.now() : 0;
    const r = check.run(ev, now);
    timed?.(check.name, (performance.now() - started) / 1000);
    Object.assign(checks, r.measured);
    if (r.status === 'decided') {
      // A check that asked for a person's look (the accessible alternative to the head-turn challenge) turns an
      // approval into a review; declines and resubmissions stand.
      const outcome = r.outcome === 'approve' && checks.review_required ? 'review' : r.outcome;
      const source = ageSourceOf(ev);
      const result = r.result && source ? { ...r.result, age_source: source } : r.result;
      return { outcome, reason: r.reason, result, checks };
    }
  }
  // The last check of every list decides; reaching here is a bug in the lists above.
  throw new Error('no check decided');
}

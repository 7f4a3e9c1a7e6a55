/**
 * The decision of one submission from its evidence: a pure function, so every rule is tested directly and
 * the order of the checks is written once. Order: usable selfie → presentation attack → blocklist →
 * liveness → the flow's own checks (age estimate; or document read, expiry, face match, age from the
 * date of birth).
 */
import type { FaceMeasure } from '../media/types';
import type { AamvaData } from '../documents/aamva';
import { ageOn, mrzDate, type MrzData } from '../documents/mrz';
import { AGE_MARGIN_YEARS, FACE_MATCH_THRESHOLD, LIVENESS_FLOOR, REPLAY_SCORE_THRESHOLD, SAME_CAPTURE_SIMILARITY } from './thresholds';
import { cosine } from './similarity';

export type Outcome = 'approve' | 'decline' | 'resubmit' | 'review';

export type DocumentRead =
  | { source: 'mrz'; mrz: MrzData; corrected: boolean }
  | { source: 'pdf417'; aamva: AamvaData }
  | null;

export type Evidence = {
  flow: 'age' | 'kyc';
  checkMethod: 'estimation' | 'document_verification' | null;
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
};

export type Decision = {
  outcome: Outcome;
  reason: string | null;
  result: Record<string, unknown> | null;
  /** what each check measured, for reviewers and the audit log */
  checks: Record<string, unknown>;
};

/** Standard normal CDF (Abramowitz-Stegun 7.1.26). */
function phi(z: number): number {
  const t = 1 / (1 + 0.3275911 * Math.abs(z) / Math.SQRT2);
  const y = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-(z * z) / 2);
  return z >= 0 ? (1 + y) / 2 : (1 - y) / 2;
}

/**
 * decisions.md's estimation result. The range is the estimate ± the model's measured error margin;
 * `pass` when the whole range is at or above the threshold, `fail` when it is all below, `refer` when it
 * straddles. confidence = probability that the true age is on the decided side of the threshold, with
 * the margin taken as two standard deviations of the error.
 */
export function estimationResult(age: number, threshold: number) {
  const estimated = Math.round(age);
  const min = Math.max(0, Math.floor(age - AGE_MARGIN_YEARS));
  const max = Math.ceil(age + AGE_MARGIN_YEARS);
  const decision = min >= threshold ? 'pass' : max < threshold ? 'fail' : 'refer';
  const sigma = AGE_MARGIN_YEARS / 2;
  const confidence = Math.round(phi(Math.abs(age - threshold) / sigma) * 1000) / 1000;
  return { decision, threshold, estimated_age: estimated, age_range: { min, max }, confidence } as const;
}

const mask = (n: string) => (n.length <= 4 ? '•'.repeat(n.length) : '•'.repeat(n.length - 4) + n.slice(-4));

type Person = { surname: string; givenNames: string; birthDate: string | null; expiryDate: string | null; documentNumber: string; issuingCountry: string; sex: string };
function person(read: NonNullable<DocumentRead>, now: Date): Person {
  if (read.source === 'pdf417') return { ...read.aamva };
  const m = read.mrz;
  return { surname: m.surname, givenNames: m.givenNames, birthDate: mrzDate(m.birthDate, 'birth', now), expiryDate: mrzDate(m.expiryDate, 'expiry', now), documentNumber: m.documentNumber, issuingCountry: m.issuingCountry, sex: m.sex };
}

export function decide(ev: Evidence, now: Date): Decision {
  const checks: Record<string, unknown> = {};
  const s = ev.selfie;
  if (!s || !s.embedding) return { outcome: 'resubmit', reason: 'selfie_quality', result: null, checks: { selfie: 'no usable face' } };

  checks.replay_score = s.replay_score ?? null;
  if (s.replay_score != null && s.replay_score >= REPLAY_SCORE_THRESHOLD) {
    return { outcome: 'decline', reason: 'fraud_detected', result: null, checks: { ...checks, signal: 'screen or print pattern on the face' } };
  }
  checks.blocklist_similarity = ev.blocklist?.similarity ?? null;
  if (ev.blocklist && ev.blocklist.similarity >= ev.blocklistThreshold) {
    return { outcome: 'decline', reason: 'blocklist_match', result: null, checks: { ...checks, blocklist_entry: ev.blocklist.id } };
  }
  checks.liveness = s.live;
  checks.same_capture_similarity = ev.otherCapture?.similarity ?? null;
  if (s.live != null && s.live < LIVENESS_FLOOR) return { outcome: 'resubmit', reason: 'liveness_failed', result: null, checks };
  if (ev.otherCapture && ev.otherCapture.similarity >= SAME_CAPTURE_SIMILARITY) {
    return { outcome: 'resubmit', reason: 'liveness_failed', result: null, checks: { ...checks, signal: 'the same picture as another verification' } };
  }

  if (ev.flow === 'age' && ev.checkMethod !== 'document_verification') {
    if (s.age == null) return { outcome: 'resubmit', reason: 'selfie_quality', result: null, checks: { ...checks, age: 'not estimated' } };
    const result = estimationResult(s.age, ev.ageThreshold);
    checks.model_age = s.age;
    const outcome = result.decision === 'pass' ? 'approve' : result.decision === 'fail' ? 'decline' : 'review';
    return { outcome, reason: outcome === 'decline' ? 'age_below_threshold' : null, result, checks };
  }

  // Document flows: Age / document_verification and KYC.
  const doc = ev.document;
  if (!doc?.portrait?.embedding) return { outcome: 'resubmit', reason: 'document_quality', result: null, checks: { ...checks, document: 'no portrait face found' } };
  if (!doc.read) return { outcome: 'resubmit', reason: 'document_quality', result: null, checks: { ...checks, document: doc.type === 'driving_licence' ? 'barcode unreadable' : 'MRZ unreadable or check digits failed' } };
  const p = person(doc.read, now);
  if (!p.birthDate) return { outcome: 'resubmit', reason: 'document_quality', result: null, checks: { ...checks, document: 'date of birth unreadable' } };
  const similarity = Math.round(cosine(s.embedding, doc.portrait.embedding) * 10000) / 10000;
  checks.face_match = { similarity, threshold: FACE_MATCH_THRESHOLD };
  const age = ageOn(p.birthDate, now);
  const document = { type: doc.type, source: doc.read.source, issuing_country: p.issuingCountry, number_masked: mask(p.documentNumber), expiry_date: p.expiryDate };
  const faceMatch = { similarity, threshold: FACE_MATCH_THRESHOLD, match: similarity >= FACE_MATCH_THRESHOLD };
  const expired = p.expiryDate !== null && p.expiryDate < now.toISOString().slice(0, 10);

  if (expired) return { outcome: 'decline', reason: 'document_expired', result: { decision: 'fail', document, face_match: faceMatch }, checks };
  if (!faceMatch.match) return { outcome: 'decline', reason: 'identity_mismatch', result: { decision: 'fail', document, face_match: faceMatch }, checks };

  if (ev.flow === 'kyc') {
    const result = {
      decision: 'pass',
      person: { surname: p.surname, given_names: p.givenNames, date_of_birth: p.birthDate, sex: p.sex },
      document,
      face_match: faceMatch,
    };
    return { outcome: 'approve', reason: null, result, checks };
  }
  const over = age >= ev.ageThreshold;
  const result = { decision: over ? 'pass' : 'fail', threshold: ev.ageThreshold, age, document, face_match: faceMatch };
  return { outcome: over ? 'approve' : 'decline', reason: over ? null : 'age_below_threshold', result, checks };
}

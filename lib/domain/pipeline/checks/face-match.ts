/**
 * Selfie ↔ document portrait: the same person at or above FACE_MATCH_THRESHOLD. An expired document is declined
 * first (`document_expired`), a mismatch as `identity_mismatch`; otherwise the flow's result: KYC approves with
 * the person and the document, Age approves or declines by the age on the date of birth.
 */
import { ageOn } from '../../documents/mrz';
import { FACE_MATCH_THRESHOLD } from '../../thresholds/thresholds';
import { cosine } from '../../faces/similarity';
import { documentSummary, personOf } from './document';
import { decided, type Check } from './types';
import { utcDay } from '../../../core/time';

export const faceMatchAndDocumentAge: Check = {
  name: 'face_match',
  run: (ev, now) => {
    const doc = ev.document!;
    const read = doc.read!;
    const p = personOf(read, now);
    const similarity = Math.round(cosine(ev.selfie!.embedding!, doc.portrait!.embedding!) * 10000) / 10000;
    const measured = { face_match: { similarity, threshold: FACE_MATCH_THRESHOLD } };
    const document = documentSummary(doc.type, read, p);
    const faceMatch = { similarity, threshold: FACE_MATCH_THRESHOLD, match: similarity >= FACE_MATCH_THRESHOLD };
    const expired = p.expiryDate !== null && p.expiryDate < utcDay(now);
    if (expired)
      return decided('decline', 'document_expired', measured, { decision: 'fail', document, face_match: faceMatch });
    if (!faceMatch.match)
      return decided('decline', 'identity_mismatch', measured, { decision: 'fail', document, face_match: faceMatch });
    if (ev.flow === 'kyc') {
      return decided('approve', null, measured, {
        decision: 'pass',
        person: { surname: p.surname, given_names: p.givenNames, date_of_birth: p.birthDate, sex: p.sex },
        document,
        face_match: faceMatch,
      });
    }
    const age = ageOn(p.birthDate!, now);
    const over = age >= ev.ageThreshold;
    return decided(over ? 'approve' : 'decline', over ? null : 'age_below_threshold', measured, {
      decision: over ? 'pass' : 'fail',
      threshold: ev.ageThreshold,
      age,
      document,
      face_match: faceMatch,
    });
  },
};

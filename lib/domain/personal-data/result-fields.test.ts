/** Which parts of a result are the decision (kept) and which are the person (sealed, then erased). */
import { describe, expect, it } from 'vitest';
import { mergeResult, splitResult } from './result-fields';

const kyc = {
  decision: 'pass',
  person: { surname: 'ERIKSSON', given_names: 'ANNA MARIA', date_of_birth: '1974-08-12', sex: 'F' },
  document: {
    type: 'id_card',
    source: 'mrz',
    issuing_country: 'UTO',
    number_masked: '•••••02C3',
    expiry_date: '2031-04-15',
  },
  face_match: { similarity: 0.91, threshold: 0.66, match: true },
};
const estimation = {
  decision: 'pass',
  threshold: 18,
  estimated_age: 29,
  age_range: { min: 19, max: 40 },
  confidence: 0.98,
  age_source: 'estimation',
};

describe('result fields', () => {
  it('KYC: the decision, face match and document type are kept; the person and the document number, expiry and country are personal', () => {
    const { kept, personal, personalPaths } = splitResult(kyc);
    expect(kept).toEqual({
      decision: 'pass',
      document: { type: 'id_card', source: 'mrz' },
      face_match: kyc.face_match,
    });
    expect(personal).toEqual({
      person: kyc.person,
      document: { issuing_country: 'UTO', number_masked: '•••••02C3', expiry_date: '2031-04-15' },
    });
    expect(personalPaths.sort()).toEqual([
      'document.expiry_date',
      'document.issuing_country',
      'document.number_masked',
      'person.date_of_birth',
      'person.given_names',
      'person.sex',
      'person.surname',
    ]);
    expect(mergeResult(kept, personal)).toEqual(kyc);
  });

  it('an age estimate is all decision: nothing to seal', () => {
    expect(splitResult(estimation)).toEqual({ kept: estimation, personal: null, personalPaths: [] });
    const docAge = {
      decision: 'fail',
      threshold: 18,
      age: 16,
      age_source: 'document',
      document: { type: 'passport', source: 'mrz', number_masked: '••1234' },
      face_match: { similarity: 0.8 },
    };
    expect(splitResult(docAge).kept).toEqual({
      decision: 'fail',
      threshold: 18,
      age: 16,
      age_source: 'document',
      document: { type: 'passport', source: 'mrz' },
      face_match: { similarity: 0.8 },
    });
  });

  it('a field nobody listed is personal: a new check cannot leak data by forgetting to say so', () => {
    const { kept, personalPaths } = splitResult({ decision: 'pass', address: { city: 'Berlin' }, nationality: 'DE' });
    expect(kept).toEqual({ decision: 'pass' });
    expect(personalPaths.sort()).toEqual(['address.city', 'nationality']);
  });

  it('no result stays no result', () => {
    expect(splitResult(null)).toEqual({ kept: null, personal: null, personalPaths: [] });
  });
});

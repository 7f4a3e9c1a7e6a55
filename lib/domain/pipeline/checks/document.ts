/**
 * Document flows (Age / document_verification and KYC): the document's portrait and its machine-readable data
 * (MRZ or AAMVA PDF417) read, and the document not expired.
 */
import { mrzDates } from '../../documents/mrz';
import { decided, next, type Check, type DocumentRead } from './types';

export type Person = {
  surname: string;
  givenNames: string;
  birthDate: string | null;
  expiryDate: string | null;
  documentNumber: string;
  issuingCountry: string;
  sex: string;
};

export function personOf(read: NonNullable<DocumentRead>, now: Date): Person {
  if (read.source === 'pdf417') return { ...read.aamva };
  const m = read.mrz;
  return {
    surname: m.surname,
    givenNames: m.givenNames,
    ...mrzDates(m.birthDate, m.expiryDate, now),
    documentNumber: m.documentNumber,
    issuingCountry: m.issuingCountry,
    sex: m.sex,
  };
}

const mask = (n: string) => (n.length <= 4 ? '•'.repeat(n.length) : '•'.repeat(n.length - 4) + n.slice(-4));

/** What a result says about the document (the number masked). */
export function documentSummary(type: string, read: NonNullable<DocumentRead>, p: Person) {
  return {
    type,
    source: read.source,
    issuing_country: p.issuingCountry,
    number_masked: mask(p.documentNumber),
    expiry_date: p.expiryDate,
  };
}

export const documentRead: Check = {
  name: 'document',
  run: (ev, now) => {
    const doc = ev.document;
    if (!doc?.portrait?.embedding)
      return decided('resubmit', 'document_quality', { document: 'no portrait face found' });
    if (!doc.read)
      return decided('resubmit', 'document_quality', {
        document: doc.type === 'driving_licence' ? 'barcode unreadable' : 'MRZ unreadable or check digits failed',
      });
    const p = personOf(doc.read, now);
    if (!p.birthDate) return decided('resubmit', 'document_quality', { document: 'date of birth unreadable' });
    return next({ document: { type: doc.type, source: doc.read.source } });
  },
};

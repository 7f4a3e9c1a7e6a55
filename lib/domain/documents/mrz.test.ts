import { describe, expect, it } from 'vitest';
import { ageOn, checkDigit, composeMrz, mrzDate, mrzDates, parseMrz, squeeze } from './mrz';

const base = {
  documentCode: 'P',
  issuingCountry: 'UTO',
  surname: 'ERIKSSON',
  givenNames: 'ANNA MARIA',
  documentNumber: 'L898902C3',
  nationality: 'UTO',
  birthDate: '740812',
  sex: 'F' as const,
  expiryDate: '310415',
};

describe('MRZ (ICAO 9303)', () => {
  it('computes check digits as in the ICAO specimen', () => {
    // ICAO 9303 part 4 specimen: L898902C3 → 6, 740812 → 2, 120415 → 9.
    expect(checkDigit('L898902C3')).toBe('6');
    expect(checkDigit('740812')).toBe('2');
    expect(checkDigit('120415')).toBe('9');
  });

  it('parses the ICAO passport specimen', () => {
    const r = parseMrz('P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\nL898902C36UTO7408122F1204159ZE184226B<<<<<10');
    expect(r?.data).toMatchObject({
      format: 'TD3',
      surname: 'ERIKSSON',
      givenNames: 'ANNA MARIA',
      documentNumber: 'L898902C3',
      birthDate: '740812',
      expiryDate: '120415',
      sex: 'F',
    });
  });

  it('round-trips composed TD3 and TD1 zones', () => {
    const td3 = composeMrz({ ...base, format: 'TD3' });
    expect(td3.map((l) => l.length)).toEqual([44, 44]);
    expect(parseMrz(td3.join('\n'))?.data).toMatchObject({ ...base, format: 'TD3' });
    const td1 = composeMrz({ ...base, documentCode: 'ID', format: 'TD1' });
    expect(td1.map((l) => l.length)).toEqual([30, 30, 30]);
    expect(parseMrz(td1.join('\n'))?.data).toMatchObject({ ...base, documentCode: 'ID', format: 'TD1' });
  });

  it('repairs the usual OCR confusions and says so', () => {
    const [l1, l2] = composeMrz({ ...base, format: 'TD3' });
    // O for 0 in the date, K for < in the name fillers, S for 5 in the expiry check digit position area.
    const ocr = l1.replace('<<<<<<<<', '<<KK<<L<') + '\n' + l2.replace('7408122', '74O8122');
    const r = parseMrz(ocr);
    expect(r?.corrected).toBe(true);
    expect(r?.data.birthDate).toBe('740812');
    expect(r?.data.givenNames).toBe('ANNA MARIA');
  });

  it('refuses a zone whose check digits do not hold', () => {
    const [l1, l2] = composeMrz({ ...base, format: 'TD3' });
    expect(parseMrz(l1 + '\n' + l2.replace('740812', '750812'))).toBeNull();
    expect(parseMrz('nothing readable here')).toBeNull();
  });

  it('chooses the century of dates', () => {
    const now = new Date('2026-11-22T00:00:00Z');
    expect(mrzDate('740812', 'birth', now)).toBe('1974-08-12');
    expect(mrzDate('100101', 'birth', now)).toBe('2010-01-01');
    expect(mrzDate('310415', 'expiry', now)).toBe('2031-04-15');
    expect(mrzDate('991332', 'birth', now)).toBeNull();
    expect(ageOn('2008-11-22', now)).toBe(18);
    expect(ageOn('2008-11-23', now)).toBe(17);
  });

  it('a birth date the century rule puts after the expiry belongs to the century before', () => {
    const now = new Date('2026-11-28T00:00:00Z');
    expect(mrzDates('121212', '110101', now)).toEqual({ birthDate: '1912-12-12', expiryDate: '2011-01-01' });
    expect(mrzDates('121212', '300101', now)).toEqual({ birthDate: '2012-12-12', expiryDate: '2030-01-01' });
  });

  it('brings filler runs read as <K, K< or L to the line length, leaving the data alone', () => {
    const [l1, l2] = composeMrz({ ...base, format: 'TD3' });
    // The 14 fillers of the optional data read as 18 symbols, phantom K and L among them.
    const misread = l2.slice(0, 28) + '<<K<K<<L<<<K<<<K<<' + l2.slice(42);
    expect(squeeze(misread, 44)).toBe(l2);
    expect(parseMrz(`${l1}\n${misread}`)?.data).toMatchObject({ birthDate: '740812', expiryDate: '310415' });
  });
});

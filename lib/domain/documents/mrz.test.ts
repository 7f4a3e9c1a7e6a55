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

  it('a 0 of a date read as the filler < is a 0: same check digit value, and the date is a date (a TD1 photo read 11<617)', () => {
    const r = parseMrz('P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\nL898902C36UTO7408122F12<4159ZE184226B<<<<<10');
    expect(r?.data).toMatchObject({ birthDate: '740812', expiryDate: '120415' });
    expect(r?.lines[1]).toBe('L898902C36UTO7408122F1204159ZE184226B<<<<<10');
    // A filler where another digit stood changes the check value: refused, never read as a 0.
    expect(
      parseMrz('P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\nL898902C36UTO7408122F1<04159ZE184226B<<<<<10'),
    ).toBeNull();
  });

  it('a field of fillers is no date, even where its check digit (a filler, 0) and the composite hold', () => {
    // A TD1 card's line read as a TD2 line put a filler run where the expiry goes: 000000 has check digit 0 too.
    const num = 'D23145890';
    const body = `${num}${checkDigit(num)}UTO7408122F<<<<<<<<<<<<<<`;
    const line2 = body + checkDigit(body.slice(0, 10) + body.slice(13, 20) + body.slice(21, 35));
    expect(parseMrz(`I<UTOERIKSSON<<ANNA<MARIA${'<'.repeat(11)}\n${line2}`)).toBeNull();
    // …nor is a month 13 or a day 32, whatever the check digits say.
    const bad = `${num}${checkDigit(num)}UTO${'741312'}${checkDigit('741312')}F120415${checkDigit('120415')}<<<<<<<`;
    const bad2 = bad + checkDigit(bad.slice(0, 10) + bad.slice(13, 20) + bad.slice(21, 35));
    expect(parseMrz(`I<UTOERIKSSON<<ANNA<MARIA${'<'.repeat(11)}\n${bad2}`)).toBeNull();
    const g = `${num}${checkDigit(num)}UTO7408122F1204159<<<<<<<`;
    expect(
      parseMrz(
        `I<UTOERIKSSON<<ANNA<MARIA${'<'.repeat(11)}\n${g}${checkDigit(g.slice(0, 10) + g.slice(13, 20) + g.slice(21, 35))}`,
      )?.data.birthDate,
    ).toBe('740812');
  });

  it('reads visas (MRV-A, 2 x 44; MRV-B, 2 x 36), which carry optional data where other documents have a composite check digit', () => {
    const num = 'L8988901C';
    const body = `${num}${checkDigit(num)}XXX7408122F1204159`;
    const a = parseMrz(`VIUTOERIKSSON<<ANNA<MARIA${'<'.repeat(19)}\n${body}${'<'.repeat(14)}AB`);
    expect(a?.data).toMatchObject({ format: 'TD3', documentCode: 'VI', birthDate: '740812', expiryDate: '120415' });
    const b = parseMrz(`VIUTOERIKSSON<<ANNA<MARIA${'<'.repeat(11)}\n${body}<<<<<<<X`);
    expect(b?.data).toMatchObject({ format: 'TD2', documentCode: 'VI', birthDate: '740812', expiryDate: '120415' });
    // The dates' own check digits still judge: a wrong birth date is refused.
    expect(
      parseMrz(`VIUTOERIKSSON<<ANNA<MARIA${'<'.repeat(11)}\n${body.replace('740812', '740813')}<<<<<<<X`),
    ).toBeNull();
    // And a passport or ID card without its composite is still refused.
    expect(parseMrz(`P<UTOERIKSSON<<ANNA<MARIA${'<'.repeat(19)}\n${body}${'<'.repeat(14)}AB`)).toBeNull();
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

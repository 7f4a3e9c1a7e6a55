/**
 * The AAMVA driver's licence / ID card data carried in the PDF417 barcode on the back of North American
 * licences (and used by our synthetic licences): a header, a subfile designator, then one element per line,
 * three-letter id followed by the value (DCS family name, DAC first name, DBB date of birth, ...).
 */

export type AamvaData = {
  surname: string;
  givenNames: string;
  documentNumber: string;
  /** ISO date */
  birthDate: string;
  expiryDate: string | null;
  issuingCountry: string;
  sex: 'M' | 'F' | 'X';
};

/** AAMVA dates are MMDDCCYY in the US and CCYYMMDD in Canada; the country element says which. */
function date(v: string | undefined, country: string): string | null {
  if (!v || !/^\d{8}$/.test(v)) return null;
  const [y, m, d] =
    country === 'CAN' ? [v.slice(0, 4), v.slice(4, 6), v.slice(6, 8)] : [v.slice(4, 8), v.slice(0, 2), v.slice(2, 4)];
  const iso = `${y}-${m}-${d}`;
  const t = new Date(iso + 'T00:00:00Z');
  return Number.isNaN(t.getTime()) || t.toISOString().slice(0, 10) !== iso ? null : iso;
}

export function parseAamva(text: string): AamvaData | null {
  if (!text.startsWith('@') || !/ANSI |AAMVA/.test(text.slice(0, 40))) return null;
  const el: Record<string, string> = {};
  for (const raw of text.split(/[\n\r\x1e]+/)) {
    // The first element follows the subfile designator (e.g. "DLDAQ..." ): strip it.
    // The header line "ANSI <IIN><version><jurisdiction version><entries>" + subfile designators runs straight
    // into the subfile's type and first element; strip both.
    const line = raw.replace(/^(ANSI |AAMVA)\d{10,12}(?:(?:DL|ID)\d{8})+/, '').replace(/^(DL|ID)(?=[A-Z]{3})/, '');
    const m = /^([A-Z]{3})(.*)$/.exec(line.trim());
    if (m && !(m[1] in el)) el[m[1]] = m[2].trim();
  }
  const country = el.DCG ?? 'USA';
  const birthDate = date(el.DBB, country);
  if (!birthDate || !el.DCS || !el.DAQ) return null;
  const sex = el.DBC === '1' ? 'M' : el.DBC === '2' ? 'F' : 'X';
  return {
    surname: el.DCS,
    givenNames: [el.DAC, el.DAD].filter((x) => x && x !== 'NONE').join(' '),
    documentNumber: el.DAQ,
    birthDate,
    expiryDate: date(el.DBA, country),
    issuingCountry: country,
    sex,
  };
}

/** The barcode text of a licence (for synthetic test documents). Dates as ISO; written MMDDCCYY (USA). */
export function composeAamva(d: AamvaData & { jurisdiction?: string }): string {
  const us = (iso: string) => `${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(0, 4)}`;
  const els = [
    `DAQ${d.documentNumber}`,
    `DCS${d.surname}`,
    `DAC${d.givenNames.split(' ')[0]}`,
    `DAD${d.givenNames.split(' ').slice(1).join(' ') || 'NONE'}`,
    `DBB${us(d.birthDate)}`,
    `DBA${us(d.expiryDate ?? '2099-01-01')}`,
    `DBC${d.sex === 'M' ? 1 : d.sex === 'F' ? 2 : 9}`,
    `DAJ${d.jurisdiction ?? 'UT'}`,
    `DCG${d.issuingCountry}`,
  ];
  const body = 'DL' + els.join('\n') + '\r';
  const header = `@\n\x1e\rANSI 636000090001DL0031${String(body.length).padStart(4, '0')}`;
  return header + body;
}

/**
 * ICAO 9303 machine-readable zones: check digits, composing (for synthetic test documents) and parsing
 * OCR output with repair of the usual confusions. TD3 = passport data page (2 x 44), TD1 = ID card back
 * (3 x 30). Fictional issuers (UTO) are fine: we validate check digits ourselves.
 */

const value = (c: string): number => {
  if (c >= '0' && c <= '9') return c.charCodeAt(0) - 48;
  if (c >= 'A' && c <= 'Z') return c.charCodeAt(0) - 55;
  return 0; // '<'
};

export function checkDigit(field: string): string {
  const w = [7, 3, 1];
  let sum = 0;
  for (let i = 0; i < field.length; i++) sum += value(field[i]) * w[i % 3];
  return String(sum % 10);
}

export type MrzData = {
  format: 'TD1' | 'TD2' | 'TD3';
  documentCode: string;
  issuingCountry: string;
  surname: string;
  givenNames: string;
  documentNumber: string;
  nationality: string;
  /** YYMMDD as printed */
  birthDate: string;
  sex: 'M' | 'F' | 'X';
  expiryDate: string;
};

const pad = (s: string, n: number) => (s + '<'.repeat(n)).slice(0, n);
const nameField = (surname: string, given: string, n: number) =>
  pad(`${surname.replace(/ /g, '<')}<<${given.replace(/ /g, '<')}`, n);

/** The MRZ lines of a document, with valid check digits. */
export function composeMrz(d: Omit<MrzData, 'format'> & { format: 'TD1' | 'TD2' | 'TD3' }): string[] {
  const sex = d.sex === 'X' ? '<' : d.sex;
  if (d.format === 'TD3') {
    const l1 = pad(`${pad(d.documentCode, 2)}${d.issuingCountry}${nameField(d.surname, d.givenNames, 39)}`, 44);
    const num = pad(d.documentNumber, 9);
    const optional = pad('', 14);
    const body = `${num}${checkDigit(num)}${d.nationality}${d.birthDate}${checkDigit(d.birthDate)}${sex}${d.expiryDate}${checkDigit(d.expiryDate)}${optional}${checkDigit(optional)}`;
    const composite = checkDigit(body.slice(0, 10) + body.slice(13, 20) + body.slice(21, 43));
    return [l1, body + composite];
  }
  if (d.format === 'TD2') {
    const l1 = pad(`${pad(d.documentCode, 2)}${d.issuingCountry}${nameField(d.surname, d.givenNames, 31)}`, 36);
    const num = pad(d.documentNumber, 9);
    const body = `${num}${checkDigit(num)}${d.nationality}${d.birthDate}${checkDigit(d.birthDate)}${sex}${d.expiryDate}${checkDigit(d.expiryDate)}${pad('', 7)}`;
    return [l1, body + checkDigit(body.slice(0, 10) + body.slice(13, 20) + body.slice(21, 35))];
  }
  const num = pad(d.documentNumber, 9);
  const l1 = pad(`${pad(d.documentCode, 2)}${d.issuingCountry}${num}${checkDigit(num)}`, 30);
  const l2body = `${d.birthDate}${checkDigit(d.birthDate)}${sex}${d.expiryDate}${checkDigit(d.expiryDate)}${d.nationality}${pad('', 11)}`;
  const composite = checkDigit(l1.slice(5, 30) + l2body.slice(0, 7) + l2body.slice(8, 15) + l2body.slice(18, 29));
  return [l1, l2body + composite, nameField(d.surname, d.givenNames, 30)];
}

// OCR confusions: in a digit position a letter is read for a digit and back.
const TO_DIGIT: Record<string, string> = {
  O: '0',
  Q: '0',
  D: '0',
  U: '0',
  I: '1',
  L: '1',
  T: '1',
  Z: '2',
  S: '5',
  B: '8',
  G: '6',
  A: '4',
};
const TO_ALPHA: Record<string, string> = { '0': 'O', '1': 'I', '2': 'Z', '5': 'S', '8': 'B', '6': 'G', '4': 'A' };
// In a digit position a filler `<` can only be a 0 misread: both count 0 towards a check digit, and any other digit
// would change it. Left as `<`, a date such as 11<617 passed its check digit and came back as no date at all.
const digits = (s: string) => [...s].map((c) => (c === '<' ? '0' : (TO_DIGIT[c] ?? c))).join('');
/**
 * A YYMMDD field that is a date (month 1-12, day 1-31): the check digits alone let a run of fillers (000000) or a
 * line of another format read in the wrong place pass as one; a date never comes from them.
 */
const isDate = (s: string) => /^\d{2}(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])$/.test(s);
/** A birth date and an expiry (digit positions already read as digits) that are dates and hold their check digits. */
const datesHold = (birth: string, birthCheck: string, expiry: string, expiryCheck: string) =>
  isDate(birth) &&
  isDate(expiry) &&
  checkDigit(birth) === digits(birthCheck) &&
  checkDigit(expiry) === digits(expiryCheck);
const alpha = (s: string) => [...s].map((c) => TO_ALPHA[c] ?? c).join('');
/** `<` is read as K, L, C, E or ( in filler runs; repairs runs of 2+ such characters next to a real filler. */
function fillers(s: string): string {
  let out = s.replace(/[«‹(\[{]/g, '<');
  for (let i = 0; i < 3; i++)
    out = out
      .replace(/(?<=<)[KLCE](?=[<KLCE]*(<|$))/g, '<')
      .replace(/[KLCE](?=<<)/g, (m, off: number) => (out[off - 1] === '<' ? '<' : m));
  return out;
}

export type MrzResult = { data: MrzData; corrected: boolean; lines: string[] };

function clean(line: string): string {
  return line
    .toUpperCase()
    .replace(/\s+/g, '')
    .replace(/[^A-Z0-9<«‹(\[{]/g, '');
}

/** A document number (alphanumeric) whose check digit fails: try the common confusions one position at a time. */
function repairAlnum(field: string, check: string): string | null {
  if (checkDigit(field) === check) return field;
  const swaps: Record<string, string[]> = {
    '0': ['O', 'D', 'Q'],
    O: ['0', 'D', 'Q'],
    D: ['0', 'O'],
    Q: ['0', 'O'],
    '1': ['I', 'L'],
    I: ['1', 'L'],
    L: ['1', 'I'],
    '2': ['Z'],
    Z: ['2'],
    '5': ['S'],
    S: ['5'],
    '8': ['B'],
    B: ['8'],
    '6': ['G'],
    G: ['6'],
  };
  for (let i = 0; i < field.length; i++) {
    for (const alt of swaps[field[i]] ?? []) {
      const f = field.slice(0, i) + alt + field.slice(i + 1);
      if (checkDigit(f) === check) return f;
    }
  }
  return null;
}

function splitName(field: string) {
  // Trailing fillers, including `<` misread as K/L (no name ends in three of them).
  const [surname, given = ''] = field
    .replace(/(?:<[<KL]*|[KL]{3,})$/, '')
    .replace(/<+$/, '')
    .split('<<');
  return { surname: surname.replace(/</g, ' ').trim(), givenNames: given.replace(/</g, ' ').trim() };
}

/**
 * Finds and parses an MRZ in OCR text. Returns null unless every check digit holds (after repair):
 * a misread date of birth must never reach a decision.
 */
export function parseMrz(text: string): MrzResult | null {
  const lines = text
    .split(/\n/)
    .map(clean)
    .filter((l) => l.length >= 25);
  for (let i = 0; i + 1 < lines.length; i++) {
    for (const sq of [false, true]) {
      const at = (k: number, n: number) => (sq ? squeeze(lines[k], n) : lines[k]);
      const td3 = tryTd3(at(i, 44), at(i + 1, 44));
      if (td3) return td3;
      const td2 = tryTd2(at(i, 36), at(i + 1, 36));
      if (td2) return td2;
      if (i + 2 < lines.length) {
        const td1 = tryTd1(at(i, 30), at(i + 1, 30), at(i + 2, 30));
        if (td1) return td1;
      }
    }
  }
  return null;
}

/**
 * A line brought to its format's length by its filler runs only: OCR reads a `<` as `<K`, `K<` or `L`, so a run of
 * fillers comes back longer or shorter than printed. Phantom K/L are dropped from the longest runs (or `<` added to
 * them) until the line has `n` characters; the data between the runs is untouched, and the check digits judge.
 */
export function squeeze(line: string, n: number): string {
  if (line.length === n) return line;
  const runs: { start: number; text: string }[] = [];
  const re = /[<KL]*<[<KL]*|[KL]{4,}$/g;
  for (let m = re.exec(line); m; m = re.exec(line))
    if (m[0].length >= 2 || m[0] === '<') runs.push({ start: m.index, text: m[0] });
  if (runs.length === 0) return line;
  let excess = line.length - n;
  const out = runs.map((r) => r.text);
  const order = runs.map((_, i) => i).sort((a, b) => runs[b].text.length - runs[a].text.length);
  if (excess > 0) {
    for (const i of order) {
      while (excess > 0 && /[KL]/.test(out[i])) {
        out[i] = out[i].replace(/[KL]/, '');
        excess--;
      }
    }
    if (excess > 0) return line;
  } else {
    out[order[0]] += '<'.repeat(-excess);
  }
  let res = '';
  let pos = 0;
  runs.forEach((r, i) => {
    res += line.slice(pos, r.start) + out[i].replace(/[KL]/g, '<');
    pos = r.start + r.text.length;
  });
  return res + line.slice(pos);
}

function fit(line: string, n: number): string | null {
  if (Math.abs(line.length - n) > 2) return null;
  return pad(line, n).slice(0, n);
}

function tryTd3(a: string, b: string): MrzResult | null {
  const l1 = fit(fillers(a), 44);
  const raw2 = fit(b, 44);
  if (!l1 || !raw2 || !/^[PV]/.test(l1)) return null;
  // A visa (MRV-A, ICAO 9303 part 7) has no composite check digit: its last 16 characters are optional data.
  const visa = l1[0] === 'V';
  const l2 = fillers(raw2);
  const numRaw = l2.slice(0, 9);
  const num = repairAlnum(numRaw, digits(l2[9]));
  const birth = digits(l2.slice(13, 19));
  const expiry = digits(l2.slice(21, 27));
  if (!num || !datesHold(birth, l2[19], expiry, l2[27])) return null;
  const sex = l2[20] === 'M' || l2[20] === 'F' ? l2[20] : 'X';
  const fixed2 =
    num +
    digits(l2[9]) +
    alpha(l2.slice(10, 13)) +
    birth +
    digits(l2[19]) +
    l2[20] +
    expiry +
    digits(l2[27]) +
    l2.slice(28, 43) +
    (visa ? l2[43] : digits(l2[43]));
  const composite = checkDigit(fixed2.slice(0, 10) + fixed2.slice(13, 20) + fixed2.slice(21, 43));
  if (!visa && composite !== fixed2[43]) return null;
  const name = splitName(alpha(l1.slice(5)));
  return {
    data: {
      format: 'TD3',
      documentCode: l1.slice(0, 2).replace(/</g, ''),
      issuingCountry: alpha(l1.slice(2, 5)),
      ...name,
      documentNumber: num.replace(/</g, ''),
      nationality: alpha(l2.slice(10, 13)),
      birthDate: birth,
      sex,
      expiryDate: expiry,
    },
    corrected: fixed2 !== raw2 || l1 !== a,
    lines: [l1, fixed2],
  };
}

/** TD2: two lines of 36 (older ID cards, some visas and residence permits). */
function tryTd2(a: string, b: string): MrzResult | null {
  const l1 = fit(fillers(a), 36);
  const raw2 = fit(b, 36);
  if (!l1 || !raw2 || !/^[IACPV]/.test(l1)) return null;
  // A visa (MRV-B) has no composite check digit: its last 8 characters are optional data.
  const visa = l1[0] === 'V';
  const l2 = fillers(raw2);
  const num = repairAlnum(l2.slice(0, 9), digits(l2[9]));
  const birth = digits(l2.slice(13, 19));
  const expiry = digits(l2.slice(21, 27));
  if (!num || !datesHold(birth, l2[19], expiry, l2[27])) return null;
  const fixed2 =
    num +
    digits(l2[9]) +
    alpha(l2.slice(10, 13)) +
    birth +
    digits(l2[19]) +
    l2[20] +
    expiry +
    digits(l2[27]) +
    l2.slice(28, 35) +
    (visa ? l2[35] : digits(l2[35]));
  if (!visa && checkDigit(fixed2.slice(0, 10) + fixed2.slice(13, 20) + fixed2.slice(21, 35)) !== fixed2[35])
    return null;
  const sex = l2[20] === 'M' || l2[20] === 'F' ? l2[20] : 'X';
  return {
    data: {
      format: 'TD2',
      documentCode: l1.slice(0, 2).replace(/</g, ''),
      issuingCountry: alpha(l1.slice(2, 5)),
      ...splitName(alpha(l1.slice(5))),
      documentNumber: num.replace(/</g, ''),
      nationality: alpha(l2.slice(10, 13)),
      birthDate: birth,
      sex,
      expiryDate: expiry,
    },
    corrected: fixed2 !== raw2 || l1 !== a,
    lines: [l1, fixed2],
  };
}

function tryTd1(a: string, b: string, c: string): MrzResult | null {
  const raw1 = fit(a, 30);
  const raw2 = fit(b, 30);
  const l3 = fit(fillers(c), 30);
  if (!raw1 || !raw2 || !l3 || !/^[IAC]/.test(raw1)) return null;
  const l1 = fillers(raw1);
  const l2 = fillers(raw2);
  const num = repairAlnum(l1.slice(5, 14), digits(l1[14]));
  const birth = digits(l2.slice(0, 6));
  const expiry = digits(l2.slice(8, 14));
  if (!num || !datesHold(birth, l2[6], expiry, l2[14])) return null;
  const f1 = l1.slice(0, 5) + num + digits(l1[14]) + l1.slice(15);
  const f2 =
    birth +
    digits(l2[6]) +
    l2[7] +
    expiry +
    digits(l2[14]) +
    alpha(l2.slice(15, 18)) +
    l2.slice(18, 29) +
    digits(l2[29]);
  const composite = checkDigit(f1.slice(5, 30) + f2.slice(0, 7) + f2.slice(8, 15) + f2.slice(18, 29));
  if (composite !== f2[29]) return null;
  const sex = l2[7] === 'M' || l2[7] === 'F' ? l2[7] : 'X';
  return {
    data: {
      format: 'TD1',
      documentCode: f1.slice(0, 2).replace(/</g, ''),
      issuingCountry: alpha(f1.slice(2, 5)),
      ...splitName(alpha(l3)),
      documentNumber: num.replace(/</g, ''),
      nationality: alpha(f2.slice(15, 18)),
      birthDate: birth,
      sex,
      expiryDate: expiry,
    },
    corrected: f1 !== a || f2 !== b || l3 !== c,
    lines: [f1, f2, l3],
  };
}

/**
 * YYMMDD → a date. Birth dates take the century that puts them in the past; expiry dates the one that
 * puts them within 50 years of now.
 */
export function mrzDate(yymmdd: string, kind: 'birth' | 'expiry', now: Date): string | null {
  if (!/^\d{6}$/.test(yymmdd)) return null;
  const yy = Number(yymmdd.slice(0, 2));
  const mm = Number(yymmdd.slice(2, 4));
  const dd = Number(yymmdd.slice(4, 6));
  const cur = now.getUTCFullYear() % 100;
  const century = Math.floor(now.getUTCFullYear() / 100) * 100;
  let year = century + yy;
  if (kind === 'birth' && yy > cur) year -= 100;
  if (kind === 'expiry' && year < now.getUTCFullYear() - 50) year += 100;
  const d = new Date(Date.UTC(year, mm - 1, dd));
  if (d.getUTCMonth() !== mm - 1 || d.getUTCDate() !== dd) return null;
  return d.toISOString().slice(0, 10);
}

/**
 * Both dates of an MRZ. A birth date the century rule puts after the expiry date belongs to the century before
 * (born 1912, expired 2011: `121212` is not 2012): the document's own dates decide, nothing is guessed.
 */
export function mrzDates(
  birth: string,
  expiry: string,
  now: Date,
): { birthDate: string | null; expiryDate: string | null } {
  let birthDate = mrzDate(birth, 'birth', now);
  const expiryDate = mrzDate(expiry, 'expiry', now);
  if (birthDate && expiryDate && birthDate > expiryDate)
    birthDate = String(Number(birthDate.slice(0, 4)) - 100).padStart(4, '0') + birthDate.slice(4);
  return { birthDate, expiryDate };
}

/** Whole years between an ISO date of birth and now. */
export function ageOn(birthIso: string, now: Date): number {
  const b = new Date(birthIso + 'T00:00:00Z');
  let age = now.getUTCFullYear() - b.getUTCFullYear();
  const m = now.getUTCMonth() - b.getUTCMonth();
  if (m < 0 || (m === 0 && now.getUTCDate() < b.getUTCDate())) age--;
  return age;
}

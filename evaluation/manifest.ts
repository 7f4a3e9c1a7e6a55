/**
 * The evaluation manifest: a CSV with the header `file,person,age,kind` (and, optionally, `sex` and `group`: free
 * labels of the person, such as a source's gender and ethnicity, empty when unknown; the age section reports its
 * figures by each of them, evaluation/age-groups.ts). `file` is relative to the manifest;
 * `person` an identity label or empty (empty means unknown, not "a different person"); `age` in years or empty;
 * `kind` is `genuine` or the name of an attack (`screen`, `print`, `mask`, …). Quoted fields ("a,b", "say ""hi""")
 * are read as CSV does.
 *
 * Rows of `kind` = `document` are photos of identity documents, read as an upload and the pipeline would
 * (evaluation/documents.ts); they need the columns `document_type` (`passport`, `id_card`, `driving_licence`),
 * `birth_date` and `expiry_date` (ISO dates), and may have `format` (TD1, TD2, TD3, PDF417) and `check_digits`
 * (`valid`, or `invalid` for a document whose printed check digits are wrong). A manifest with a
 * `document_type` column may leave out `person` and `age`. Other columns are ignored.
 */
import fs from 'node:fs';
import path from 'node:path';

export type DocumentType = 'passport' | 'id_card' | 'driving_licence';
export type DocumentFormat = 'TD1' | 'TD2' | 'TD3' | 'PDF417';
/** The labels of a `document` row: what its machine-readable zone or barcode says. */
export type DocumentLabel = {
  type: DocumentType;
  birthDate: string;
  expiryDate: string;
  format: DocumentFormat | null;
  checkDigits: 'valid' | 'invalid';
};

const DOCUMENT_TYPES: readonly string[] = ['passport', 'id_card', 'driving_licence'];
const FORMATS: readonly string[] = ['TD1', 'TD2', 'TD3', 'PDF417'];
const isoDate = (v: string) =>
  /^\d{4}-\d{2}-\d{2}$/.test(v) && new Date(v + 'T00:00:00Z').toISOString().slice(0, 10) === v;

export type ManifestRow = {
  file: string;
  path: string;
  person: string | null;
  age: number | null;
  kind: string;
  /** `document` rows: their labels */
  document?: DocumentLabel;
  /** the optional `sex` column's label (absent without the column, null when empty) */
  sex?: string | null;
  /** the optional `group` column's label (absent without the column, null when empty) */
  group?: string | null;
};

/** The optional label columns, in the order the report gives them. */
export const LABEL_COLUMNS = ['sex', 'group'] as const;
export type LabelColumn = (typeof LABEL_COLUMNS)[number];

export class ManifestError extends Error {}

/** One CSV line into fields (RFC 4180 quoting). */
export function csvFields(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        cur += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cur += c;
    } else if (c === '"' && cur === '') quoted = true;
    else if (c === ',') {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  out.push(cur);
  return out;
}

export function parseManifest(text: string, folder: string): ManifestRow[] {
  const lines = text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .filter((l) => l.trim() !== '');
  if (lines.length === 0) throw new ManifestError('the manifest is empty');
  const header = csvFields(lines[0]).map((h) => h.trim().toLowerCase());
  const documents = header.includes('document_type');
  const col = (name: string) => {
    const i = header.indexOf(name);
    // A document manifest (with document_type) may leave out person and age.
    if (i < 0 && !(documents && (name === 'person' || name === 'age')))
      throw new ManifestError(`the manifest's header must be file,person,age,kind (no "${name}" column)`);
    return i;
  };
  const [fi, pi, ai, ki] = ['file', 'person', 'age', 'kind'].map(col);
  const [ti, bi, ei, mi, ci] = ['document_type', 'birth_date', 'expiry_date', 'format', 'check_digits'].map((h) =>
    header.indexOf(h),
  );
  const labelAt = LABEL_COLUMNS.map((c) => [c, header.indexOf(c)] as const).filter(([, i]) => i >= 0);
  const rows: ManifestRow[] = [];
  const seen = new Set<string>();
  for (const [n, line] of lines.slice(1).entries()) {
    const f = csvFields(line);
    const where = `manifest line ${n + 2}`;
    const file = (f[fi] ?? '').trim();
    if (!file) throw new ManifestError(`${where}: no file`);
    if (path.isAbsolute(file) || file.split(/[\\/]/).includes('..'))
      throw new ManifestError(`${where}: file must be relative to the manifest, inside its folder`);
    if (seen.has(file)) throw new ManifestError(`${where}: ${file} is listed twice`);
    seen.add(file);
    const ageText = (f[ai] ?? '').trim();
    const age = ageText === '' ? null : Number(ageText);
    if (age !== null && !(Number.isFinite(age) && age >= 0 && age < 130))
      throw new ManifestError(`${where}: age "${ageText}" is not a number of years`);
    const kind = (f[ki] ?? '').trim().toLowerCase() || 'genuine';
    if (!/^[a-z0-9_-]+$/.test(kind))
      throw new ManifestError(`${where}: kind "${kind}" must be genuine or an attack name (letters, digits, - and _)`);
    const person = (f[pi] ?? '').trim() || null;
    if (kind === 'document') {
      rows.push({
        file,
        path: path.join(folder, file),
        person,
        age,
        kind,
        document: documentLabel(f, { ti, bi, ei, mi, ci }, where),
      });
      continue;
    }
    const labels: Partial<Record<LabelColumn, string | null>> = {};
    for (const [c, i] of labelAt) {
      const v = (f[i] ?? '').trim();
      if (v.length > 64 || [...v].some((ch) => ch.charCodeAt(0) < 32))
        throw new ManifestError(
          `${where}: ${c} "${v.slice(0, 20)}…" must be a label of at most 64 printable characters`,
        );
      labels[c] = v || null;
    }
    rows.push({ file, path: path.join(folder, file), person, age, kind, ...labels });
  }
  return rows;
}

function documentLabel(f: string[], c: Record<'ti' | 'bi' | 'ei' | 'mi' | 'ci', number>, where: string): DocumentLabel {
  const get = (i: number) => (i < 0 ? '' : (f[i] ?? '').trim());
  const type = get(c.ti).toLowerCase();
  if (!DOCUMENT_TYPES.includes(type))
    throw new ManifestError(
      `${where}: a document row needs document_type passport, id_card or driving_licence (got "${type}")`,
    );
  const birthDate = get(c.bi);
  const expiryDate = get(c.ei);
  if (!isoDate(birthDate))
    throw new ManifestError(`${where}: birth_date "${birthDate}" is not an ISO date (YYYY-MM-DD)`);
  if (!isoDate(expiryDate))
    throw new ManifestError(`${where}: expiry_date "${expiryDate}" is not an ISO date (YYYY-MM-DD)`);
  const format = get(c.mi).toUpperCase();
  if (format && !FORMATS.includes(format))
    throw new ManifestError(`${where}: format "${format}" must be TD1, TD2, TD3 or PDF417`);
  const checks = get(c.ci).toLowerCase() || 'valid';
  if (checks !== 'valid' && checks !== 'invalid')
    throw new ManifestError(`${where}: check_digits "${checks}" must be valid or invalid`);
  return {
    type: type as DocumentType,
    birthDate,
    expiryDate,
    format: (format || null) as DocumentFormat | null,
    checkDigits: checks,
  };
}

export function readManifest(folder: string): ManifestRow[] {
  const file = path.join(folder, 'manifest.csv');
  if (!fs.existsSync(file)) throw new ManifestError(`no manifest.csv in ${folder}`);
  return parseManifest(fs.readFileSync(file, 'utf8'), folder);
}

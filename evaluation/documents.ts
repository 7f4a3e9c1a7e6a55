/**
 * Documents in the evaluation: every `kind` = `document` row of a manifest is read exactly as an upload and the
 * pipeline would read it, through ONE adapter, `readDocumentPhoto`, and compared with its labels.
 *
 *   correct  the date of birth and the expiry date both equal the labels;
 *   wrong    a date of birth came back that differs from the label (the dangerous case: a minor passed);
 *   unread   nothing came back: the upload refused the photo (any code) or nothing valid was read;
 *   expiry_wrong  the date of birth is right and the expiry date is not (counted apart, so the four add up).
 *
 * Rows labelled `check_digits=invalid` (a specimen whose printed check digits are wrong) are kept out of those
 * counts: each must come back unread (`invalid_check_digits`).
 */
import { DomainError } from '../lib/core/errors';
import { checkFile } from '../lib/domain/media/validate';
import { checkDocumentUpload, formatOf as readFormat } from '../lib/domain/documents/read';
import { personOf } from '../lib/domain/pipeline/checks/document';
import type { Analysis } from '../lib/domain/media/types';
import type { DocumentFormat, DocumentLabel, DocumentType, ManifestRow } from './manifest';
import { quantile, round } from './stats';
import fs from 'node:fs';

export type DocumentReadResult =
  | { ok: true; format: DocumentFormat; birthDate: string; expiryDate: string | null; ms: number }
  | { ok: false; code: string; ms: number };

export type AnalyzeDocument = (bytes: Uint8Array, kind: 'document') => Promise<Analysis>;

/** The code of a photo from which nothing valid was read: the upload refuses it (422, docs/api.md "Document images"). */
export const UNREADABLE = 'DOCUMENT_UNREADABLE';

/**
 * Reads one document photo exactly as an upload of the side that carries the code (a passport's data page, an ID
 * card's or licence's back): the file checks, the analysis pool's document measurements, then the upload's own
 * verdict (`checkDocumentUpload` in lib/domain/documents/read.ts: the MRZ or PDF417 read, which the pipeline then
 * decides from), its dates as the pipeline turns them into ISO dates. A refused upload answers `{ok: false, code}`
 * with the upload's code (`DOCUMENT_UNREADABLE` when nothing valid was read). `ms` is the whole time, upload checks
 * included.
 */
export async function readDocumentPhoto(
  image: Uint8Array,
  opts: { documentType: DocumentType; analyze: AnalyzeDocument; now?: Date },
): Promise<DocumentReadResult> {
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  try {
    const { checks } = await checkFile(image, 'document');
    const analysis = await opts.analyze(image, 'document');
    const { failed, read } = await checkDocumentUpload(
      analysis,
      checks,
      opts.documentType === 'passport' ? 'front' : 'back',
      opts.documentType,
      image,
    );
    if (failed.length > 0 || !read) return { ok: false, code: failed[0] ?? UNREADABLE, ms: ms() };
    const person = personOf(read, opts.now ?? new Date());
    if (!person.birthDate) return { ok: false, code: UNREADABLE, ms: ms() };
    return { ok: true, format: readFormat(read), birthDate: person.birthDate, expiryDate: person.expiryDate, ms: ms() };
  } catch (e) {
    if (e instanceof DomainError) return { ok: false, code: e.code, ms: ms() };
    throw e;
  }
}

export type DocumentOutcome = 'correct' | 'wrong' | 'unread' | 'expiry_wrong';
export type DocumentRecord = {
  file: string;
  label: DocumentLabel;
  result: DocumentReadResult;
  outcome: DocumentOutcome;
};

export function outcomeOf(label: DocumentLabel, r: DocumentReadResult): DocumentOutcome {
  if (!r.ok) return 'unread';
  if (r.birthDate !== label.birthDate) return 'wrong';
  return r.expiryDate === label.expiryDate ? 'correct' : 'expiry_wrong';
}

/**
 * Reads every document row, one at a time (the reader's time is part of the measurement, so reads do not
 * queue behind each other). Never throws for a bad photo: an error becomes an unread with code `ERROR`.
 */
export async function measureDocuments(
  rows: ManifestRow[],
  opts: { analyze: AnalyzeDocument; now?: Date; onProgress?: (done: number, total: number) => void },
): Promise<DocumentRecord[]> {
  const out: DocumentRecord[] = [];
  for (const row of rows) {
    const label = row.document!;
    let result: DocumentReadResult;
    const started = performance.now();
    try {
      result = await readDocumentPhoto(fs.readFileSync(row.path), {
        documentType: label.type,
        analyze: opts.analyze,
        now: opts.now,
      });
    } catch (e) {
      void e;
      result = { ok: false, code: 'ERROR', ms: Math.round(performance.now() - started) };
    }
    out.push({ file: row.file, label, result, outcome: outcomeOf(label, result) });
    opts.onProgress?.(out.length, rows.length);
  }
  return out;
}

const count = (rs: DocumentRecord[], o: DocumentOutcome) => rs.filter((r) => r.outcome === o).length;
const kn = (k: number, n: number) => ({ k, n });

function figures(rs: DocumentRecord[]) {
  const n = rs.length;
  const correct = count(rs, 'correct');
  return {
    n,
    correct: { k: correct, n, rate: n ? round(correct / n, 4) : null },
    wrong: kn(count(rs, 'wrong'), n),
    unread: kn(count(rs, 'unread'), n),
    expiry_wrong: kn(count(rs, 'expiry_wrong'), n),
  };
}

/** The format a row counts under: its label's, else what was read, else `unknown`. */
const formatOf = (r: DocumentRecord) => r.label.format ?? (r.result.ok ? r.result.format : 'unknown');

export type DocumentsSection = ReturnType<typeof documentsSection>;

/** The `documents` section of the summary. */
export function documentsSection(records: DocumentRecord[]) {
  const valid = records.filter((r) => r.label.checkDigits === 'valid');
  const invalid = records.filter((r) => r.label.checkDigits === 'invalid');
  const order = ['TD1', 'TD2', 'TD3', 'PDF417', 'unknown'];
  const formats = [...new Set(valid.map(formatOf))].sort((a, b) => order.indexOf(a) - order.indexOf(b));
  const ms = records.map((r) => r.result.ms);
  const refused = (rs: DocumentRecord[]) => {
    const codes: Record<string, number> = {};
    for (const r of rs) if (!r.result.ok) codes[r.result.code] = (codes[r.result.code] ?? 0) + 1;
    return Object.fromEntries(Object.entries(codes).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])));
  };
  const accepted = valid.filter((r) => r.result.ok).length;
  return {
    ...figures(valid),
    by_format: formats.map((format) => ({ format, ...figures(valid.filter((r) => formatOf(r) === format)) })),
    ms: {
      p50: ms.length ? Math.round(quantile(ms, 0.5)) : null,
      p95: ms.length ? Math.round(quantile(ms, 0.95)) : null,
    },
    /** the upload's answer: accepted (and read), or refused by the code the API would answer (DOCUMENT_UNREADABLE included) */
    upload: { accepted: kn(accepted, valid.length), refused_by_code: refused(valid.filter((r) => !r.result.ok)) },
    /** every reason a photo came back unread, the upload's codes and DOCUMENT_UNREADABLE */
    unread_by_code: refused(valid),
    /** specimens whose printed check digits are wrong: each must come back unread */
    invalid_check_digits: { n: invalid.length, unread: kn(count(invalid, 'unread'), invalid.length) },
  };
}

/** The line the CLI prints. */
export function documentsLine(d: DocumentsSection): string {
  const formats = d.by_format.map((f) => `${f.format} ${f.correct.k}/${f.n}`).join(', ');
  return (
    `documents: read correctly ${d.correct.k} of ${d.n} (${formats}), wrong date of birth ${d.wrong.k}, unread ${d.unread.k}, right birth wrong expiry ${d.expiry_wrong.k}; ` +
    `accepted at upload ${d.upload.accepted.k} of ${d.upload.accepted.n}; one read p50 ${d.ms.p50 ?? '–'} ms, p95 ${d.ms.p95 ?? '–'} ms` +
    (d.invalid_check_digits.n
      ? `; printed check digits wrong: ${d.invalid_check_digits.unread.k} of ${d.invalid_check_digits.n} unread`
      : '') +
    '\n'
  );
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const share = (x: { k: number; n: number }) => `${x.k} of ${x.n}${x.n ? ` (${((x.k / x.n) * 100).toFixed(1)} %)` : ''}`;

/** The report's Documents section (HTML). */
export function documentsHtml(d: DocumentsSection): string {
  const row = (name: string, f: ReturnType<typeof figures>) =>
    `<tr><td>${esc(name)}</td><td>${f.n}</td><td>${share(f.correct)}</td><td>${share(f.wrong)}</td><td>${share(f.unread)}</td><td>${share(f.expiry_wrong)}</td></tr>`;
  const codes = (c: Record<string, number>) =>
    Object.entries(c)
      .map(([k, v]) => `<code>${esc(k)}</code> ${v}`)
      .join(', ') || 'none';
  return `<h2>Documents</h2>
<p>Each document photo is read as an upload and the pipeline would read it: the upload's checks, then the machine-readable zone or the PDF417 barcode of the side that carries it. <em>Correct</em>: date of birth and expiry both equal the labels; <em>wrong</em>: a date of birth that differs from the label was returned; <em>unread</em>: nothing was returned (the upload refused the photo, or nothing valid was read).</p>
<table><tr><th>format</th><th>n</th><th>read correctly</th><th>wrong date of birth</th><th>unread</th><th>right birth, wrong expiry</th></tr>${d.by_format.map((f) => row(f.format, f)).join('')}${row('all', d)}</table>
<table><tr><th>accepted at upload</th><td>${share(d.upload.accepted)}; refused: ${codes(d.upload.refused_by_code)}</td></tr>
<tr><th>unread, by code</th><td>${codes(d.unread_by_code)}</td></tr>
<tr><th>time of one read (upload checks included)</th><td>median ${d.ms.p50 ?? '–'} ms, 95th percentile ${d.ms.p95 ?? '–'} ms</td></tr>
<tr><th>printed check digits wrong: unread</th><td>${share(d.invalid_check_digits.unread)}</td></tr></table>
`;
}

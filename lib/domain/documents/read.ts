/**
 * Reading a document photo exactly as the upload does (docs/api.md "Document images"): the file checks with the
 * document's own size floor, then the machine-readable data of the side that carries it: the MRZ (TD1, TD2, TD3)
 * or, on a North American licence, the AAMVA PDF417 barcode. Only a read whose check digits all hold (the
 * composite included) counts; nothing is guessed. The upload keeps a successful read (sealed) so the pipeline
 * decides from it without reading again; the evaluator calls `readDocumentPhoto` so that a photo the upload would
 * refuse counts as unread.
 */
import sharp from 'sharp';
import { DomainError, type ErrorCode } from '../../core/errors';
import { checkDocument, checkFile, type Checks } from '../media/validate';
import type { Analysis } from '../media/types';
import { MAX_PIXELS } from '../media/analyze';
import { parseAamva, type AamvaData } from './aamva';
import { readPdf417 } from './barcode';
import { mrzDates, type MrzData } from './mrz';
import { readMrz, readMrzPhoto } from './ocr';
import type { DbOrTx } from '@/lib/db/client';
import { ensureDataKey } from '../personal-data/data-keys';
import { AAD, dataKeyRows, keyOpener, openText, sealText } from '../personal-data/personal';

export type DocumentType = 'passport' | 'id_card' | 'driving_licence';
export type DocumentFormat = 'TD1' | 'TD2' | 'TD3' | 'PDF417';

/** What was read, as the pipeline takes it (lib/domain/pipeline/checks/types.ts DocumentRead). */
export type CodeRead = { source: 'mrz'; mrz: MrzData; corrected: boolean } | { source: 'pdf417'; aamva: AamvaData };

export type DocumentPhotoRead =
  | {
      ok: true;
      format: DocumentFormat;
      /** ISO YYYY-MM-DD; null when the document prints no valid date there */
      birthDate: string | null;
      expiryDate: string | null;
      documentNumber: string;
      read: CodeRead;
      ms: number;
    }
  | { ok: false; code: ErrorCode; message: string; ms: number };

/** The format of a read. */
export const formatOf = (r: CodeRead): DocumentFormat => (r.source === 'pdf417' ? 'PDF417' : r.mrz.format);

/** The dates of a read, ISO. MRZ dates are YYMMDD: the birth date's century is the one that puts it in the past. */
export function datesOf(r: CodeRead, now: Date): { birthDate: string | null; expiryDate: string | null } {
  if (r.source === 'pdf417') return { birthDate: r.aamva.birthDate, expiryDate: r.aamva.expiryDate };
  return mrzDates(r.mrz.birthDate, r.mrz.expiryDate, now);
}

/**
 * The machine-readable data of an oriented image (EXIF orientation applied). A licence is read by its barcode first;
 * a passport or ID card by its MRZ. Without a type, both are tried. The zone is looked for anywhere in the photo, at
 * any angle (`readMrzPhoto`); only when that gives no valid read is the lower part of `box` read (where the upload's
 * card-shape detector found the document: `readMrz`), and then of the whole image (a flat upright scan).
 */
export async function readCode(
  oriented: Buffer,
  documentType?: DocumentType,
  box?: number[] | null,
): Promise<CodeRead | null> {
  if (documentType === 'driving_licence' || !documentType) {
    for (const text of await readPdf417(oriented)) {
      const aamva = parseAamva(text);
      if (aamva) return { source: 'pdf417', aamva };
    }
  }
  let r = await readMrzPhoto(oriented);
  if (!r.mrz) r = await readMrz(oriented, box ?? null);
  // The card detector's box can be the wrong region (the security print of a flat scan): then the scan as a whole.
  if (!r.mrz && box) r = await readMrz(oriented, null);
  if (r.mrz) return { source: 'mrz', mrz: r.mrz.data, corrected: r.mrz.corrected };
  return null;
}

/** The side of a document that carries its machine-readable data: a passport's data page, an ID card's or licence's back. */
export const carriesCode = (documentType: DocumentType, side: 'front' | 'back') =>
  documentType === 'passport' ? side === 'front' : side === 'back';

/**
 * The upload's verdict on a document photo already checked as a file and analysed (docs/api.md "Document images"):
 * the side carrying the MRZ or barcode is read now, and a read whose check digits all hold proves the document is
 * there and sharp, whatever the card-shape detector made of the background; without one the upload is refused at
 * once (`DOCUMENT_UNREADABLE`), before any attempt is spent. A passport's data page must still show its portrait
 * (the selfie is matched to it). The upload and the evaluator (evaluation/documents.ts) both decide here.
 */
export async function checkDocumentUpload(
  analysis: Analysis,
  checks: Checks,
  side: 'front' | 'back',
  documentType: DocumentType,
  original?: Uint8Array,
): Promise<{ failed: ErrorCode[]; read: CodeRead | null }> {
  const { failed } = checkDocument(analysis, checks, side);
  if (!carriesCode(documentType, side)) return { failed, read: null };
  // The code is read from the file as uploaded (orientation applied, lossless, grey: a third of the colour's memory),
  // not from the stored JPEG: on a small scan the JPEG's smoothing alone makes an MRZ unreadable.
  const source = original
    ? await sharp(original, { limitInputPixels: MAX_PIXELS })
        .rotate()
        .greyscale()
        .png({ compressionLevel: 0 })
        .toBuffer()
    : analysis.stored;
  const read = await readCode(source, documentType, analysis.document?.box);
  checks.document_read = {
    value: read ? { format: formatOf(read) } : null,
    threshold: 'check digits valid',
    passed: !!read,
  };
  const rest: ErrorCode[] = failed.filter((c) => c !== 'DOCUMENT_NOT_FOUND' && c !== 'DOCUMENT_TOO_BLURRY');
  if (!read) return { failed: ['DOCUMENT_UNREADABLE', ...rest], read };
  if (side === 'front' && checks.portrait && !checks.portrait.passed) rest.push('DOCUMENT_NOT_FOUND');
  return { failed: rest, read };
}

/**
 * One document photo, validated and read as an upload of the side carrying the code: refused (`ok: false`, the
 * upload's error code) or read with every check digit valid.
 */
export async function readDocumentPhoto(
  image: Buffer,
  opts: { documentType?: DocumentType; now?: Date } = {},
): Promise<DocumentPhotoRead> {
  const t = performance.now();
  const ms = () => Math.round(performance.now() - t);
  try {
    await checkFile(image, 'document');
  } catch (e) {
    if (e instanceof DomainError) return { ok: false, code: e.code, message: e.message, ms: ms() };
    throw e;
  }
  let oriented: Buffer;
  try {
    oriented = await sharp(image, { limitInputPixels: MAX_PIXELS, failOn: 'error' })
      .rotate()
      .png({ compressionLevel: 1 })
      .toBuffer();
  } catch {
    return {
      ok: false,
      code: 'UNSUPPORTED_MEDIA_TYPE',
      message: 'The file is damaged or not a readable image.',
      ms: ms(),
    };
  }
  const read = await readCode(oriented, opts.documentType);
  if (!read)
    return {
      ok: false,
      code: 'DOCUMENT_UNREADABLE',
      message: 'No machine-readable zone or barcode with valid check digits was found.',
      ms: ms(),
    };
  const dates = datesOf(read, opts.now ?? new Date());
  const documentNumber = read.source === 'pdf417' ? read.aamva.documentNumber : read.mrz.documentNumber;
  return { ok: true, format: formatOf(read), ...dates, documentNumber, read, ms: ms() };
}

/** A read sealed for its medium's row (`media.read_sealed`), under the verification's data key. */
export async function sealRead(db: DbOrTx, verificationId: string, mediaId: string, read: CodeRead): Promise<Buffer> {
  return sealText(await ensureDataKey(db, verificationId), AAD.documentRead(mediaId), JSON.stringify(read));
}

/** The read kept with an upload; null when none was kept (an older upload, or a side without the code) or it is erased. */
export async function openRead(
  db: DbOrTx,
  row: { id: string; verificationId: string; readSealed: Buffer | null },
): Promise<CodeRead | null> {
  if (!row.readSealed) return null;
  const key = keyOpener(await dataKeyRows(db, [row.verificationId]))(row.verificationId);
  const text = openText(key, AAD.documentRead(row.id), row.readSealed);
  return text ? (JSON.parse(text) as CodeRead) : null;
}

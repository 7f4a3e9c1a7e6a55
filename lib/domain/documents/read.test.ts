/**
 * The reader the upload uses (readDocumentPhoto): synthetic documents rendered at test time (OCR-B MRZ) and
 * photographed as a phone would (test/helpers/phone-photo.ts), and specimens whose printed check digits are wrong.
 */
import { afterAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { renderDocument } from '@/test/helpers/images';
import { phoneDocument } from '@/test/helpers/phone-photo';
import { provision } from '@/test/setup/provision.mjs';
import { readCode, readDocumentPhoto } from './read';
import { composeMrz } from './mrz';
import { readMrzPhoto, stopOcr } from './ocr';

afterAll(() => stopOcr());
const now = new Date('2026-11-28T00:00:00Z');
const who = {
  surname: 'ERIKSSON',
  givenNames: 'ANNA MARIA',
  documentNumber: 'L898902C3',
  nationality: 'UTO',
  issuingCountry: 'UTO',
  birthDate: '740812',
  sex: 'F' as const,
  expiryDate: '310415',
};
/** `line` of the zone with the character at `at` replaced (a check digit printed wrong). */
const wrong = (lines: string[], line: number, at: number) =>
  lines.map((l, i) => (i === line ? l.slice(0, at) + String((Number(l[at]) + 1) % 10) + l.slice(at + 1) : l));

describe("readDocumentPhoto (the upload's validation and read)", () => {
  it('reads a passport data page on a table: TD3, ISO dates', async () => {
    const r = await readDocumentPhoto(await renderDocument('passport', 'front'), { documentType: 'passport', now });
    expect(r).toMatchObject({
      ok: true,
      format: 'TD3',
      birthDate: '1974-08-12',
      expiryDate: '2031-04-15',
      documentNumber: 'L898902C3',
    });
  }, 120_000);

  it('reads a passport photographed a quarter turn round, and one tilted 20° in perspective on a cluttered table', async () => {
    for (const shot of [
      { rotate: 90, fill: 0.62 },
      { tilt: 20, rotate: 6, background: 'clutter' as const, quality: 80 },
    ]) {
      const r = await readDocumentPhoto(await phoneDocument('passport', shot), { documentType: 'passport', now });
      expect([shot, r.ok && r.birthDate]).toEqual([shot, '1974-08-12']);
    }
  }, 240_000);

  it('reads a TD2 zone (two lines of 36) on a card back', async () => {
    const r = await readDocumentPhoto(
      await renderDocument('id_card', 'back', undefined, {
        mrzLines: composeMrz({ ...who, documentCode: 'I', format: 'TD2' }),
      }),
      { documentType: 'id_card', now },
    );
    expect(r).toMatchObject({ ok: true, format: 'TD2', birthDate: '1974-08-12', expiryDate: '2031-04-15' });
  }, 120_000);

  it('three specimens whose printed check digits are wrong come back unread: date of birth, composite (TD3), document number (TD1)', async () => {
    const td3 = composeMrz({ ...who, documentCode: 'P', format: 'TD3' });
    const td1 = composeMrz({ ...who, documentCode: 'ID', format: 'TD1' });
    const specimens: [string, Buffer][] = [
      ['birth date check digit', await renderDocument('passport', 'front', undefined, { mrzLines: wrong(td3, 1, 19) })],
      ['composite check digit', await renderDocument('passport', 'front', undefined, { mrzLines: wrong(td3, 1, 43) })],
      [
        'document number check digit',
        await renderDocument('id_card', 'back', undefined, { mrzLines: wrong(td1, 0, 14) }),
      ],
    ];
    for (const [name, image] of specimens) {
      const r = await readDocumentPhoto(image, { documentType: name.includes('number') ? 'id_card' : 'passport', now });
      expect([name, r.ok ? r.birthDate : r.code]).toEqual([name, 'DOCUMENT_UNREADABLE']);
    }
  }, 360_000);

  it('a document image under 240x150 is IMAGE_TOO_SMALL', async () => {
    const tiny = await sharp(await renderDocument('passport', 'front'))
      .resize(230, 140, { fit: 'fill' })
      .jpeg()
      .toBuffer();
    expect(await readDocumentPhoto(tiny, { documentType: 'passport', now })).toMatchObject({
      ok: false,
      code: 'IMAGE_TOO_SMALL',
    });
  }, 120_000);
});

describe('readCode', () => {
  it("reads a flat scan's zone from the whole image when neither the zone finder nor the detector's box finds it", async () => {
    // A specimen card's back as a flat scan, its zone printed large across the width under a diagonal overprint and a
    // line of small print (as on a real specimen that was refused until this step was added).
    provision(['fonts']);
    const lines = composeMrz({ ...who, format: 'TD1', documentCode: 'ID', documentNumber: 'T22000129' });
    const esc = (t: string) => t.replace(/</g, '&lt;');
    const svg =
      `<svg width="1000" height="631"><rect width="1000" height="631" fill="#f4f1ea"/>` +
      `<text x="250" y="330" transform="rotate(-20 500 250)" font-family="DejaVu Sans" font-size="150" fill="none" stroke="#2a6fb5" stroke-width="4">MUSTER</text>` +
      `<text x="0" y="352" font-family="DejaVu Sans" font-size="28" fill="#bbb">${'MUSTER '.repeat(12)}</text>` +
      lines
        .map(
          (l, i) =>
            `<text x="40" y="${470 + i * 55}" font-family="OCR B" font-size="40" letter-spacing="2" fill="#111">${esc(l)}</text>`,
        )
        .join('') +
      '</svg>';
    const scan = await sharp(Buffer.from(svg)).png().toBuffer();
    // The zone finder's candidates are the overprint's; the detector's box (the upper half) holds no zone.
    expect((await readMrzPhoto(scan)).mrz).toBeNull();
    const read = await readCode(scan, 'id_card', [0, 0, 1000, 300]);
    expect(read).toMatchObject({ source: 'mrz', mrz: { format: 'TD1', birthDate: '740812', expiryDate: '310415' } });
  }, 120_000);
});

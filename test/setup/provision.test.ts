/**
 * The test setup's fonts: the synthetic documents are rendered with OCR-B and DejaVu from .cache/fonts
 * (Debian's packages, unpacked), whatever fonts the machine has, so the MRZ tests pass on a fresh machine.
 */
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { expect, test } from 'vitest';
import { FONTCONFIG_FILE, FONTS_DIR, provision } from './provision.mjs';

const textPixels = async (family: string) => {
  const svg = `<svg width="700" height="70"><rect width="700" height="70" fill="#fff"/><text x="8" y="50" font-family="${family}" font-size="40">P&lt;UTOERIKSSON&lt;&lt;ANNA&lt;MARIA</text></svg>`;
  return (await sharp(Buffer.from(svg)).greyscale().raw().toBuffer()).toString('base64');
};

test('fonts come from .cache/fonts through a fontconfig file that lists only them', async () => {
  provision(['fonts']);
  expect(process.env.FONTCONFIG_FILE).toBe(FONTCONFIG_FILE);
  const conf = fs.readFileSync(FONTCONFIG_FILE, 'utf8');
  expect([...conf.matchAll(/<dir>(.*)<\/dir>/g)].map((m) => m[1])).toEqual([path.join(FONTS_DIR, 'files')]);
  expect(conf).not.toContain('/etc/fonts');
  // OCR-B is really used: it renders differently from DejaVu Sans Mono and from an unknown family's fallback.
  const ocrb = await textPixels('OCR B');
  expect(ocrb).not.toBe(await textPixels('DejaVu Sans Mono'));
  expect(ocrb).not.toBe(await textPixels('No Such Font'));
});

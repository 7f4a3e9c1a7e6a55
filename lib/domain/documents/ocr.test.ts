/**
 * The MRZ reader's edges: the detector's box at the image's edge, and a card's zone printed small in a large frame.
 */
import { afterAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { renderDocument } from '@/test/helpers/images';
import { readMrz, readMrzPhoto, stopOcr } from './ocr';

afterAll(() => stopOcr());

describe('readMrz and readMrzPhoto', () => {
  it('a box whose lower band rounds one pixel past the image (a 352x450 scan read whole) is read, not an error', async () => {
    // 450 x 0.45 = 202.5: the band's top and height, each rounded, once reached row 451 (sharp: bad extract area).
    const blank = await sharp({ create: { width: 352, height: 450, channels: 3, background: '#ffffff' } })
      .png()
      .toBuffer();
    for (const box of [
      [0, 0, 352, 450],
      [-3, 5, 360, 460],
    ])
      expect((await readMrz(blank, box)).mrz).toBeNull();
  }, 60_000);

  it("reads an ID card's zone printed small in a large frame (both sides side by side, each a sixth of its width)", async () => {
    const side = async (s: 'front' | 'back') =>
      sharp(await renderDocument('id_card', s))
        .resize({ width: 340 })
        .toBuffer();
    const photo = await sharp({ create: { width: 2000, height: 1500, channels: 3, background: '#55585e' } })
      .composite([
        { input: await side('front'), left: 640, top: 700 },
        { input: await side('back'), left: 990, top: 700 },
      ])
      .png()
      .toBuffer();
    const r = await readMrzPhoto(photo);
    expect(r.mrz?.data).toMatchObject({ format: 'TD1', birthDate: '740812', expiryDate: '310415' });
  }, 60_000);
});

/**
 * Test images: real face photos from packages (unpacked into .cache/photos by the test setup, never
 * committed) and the cases derived from them by code, plus synthetic identity documents (rendered with the
 * fonts the test setup unpacks into .cache/fonts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import sharp, { type OverlayOptions, type Sharp } from 'sharp';
import { composeAamva } from '../../lib/domain/documents/aamva';
import { pdf417Svg } from '../../lib/domain/documents/barcode';
import { composeMrz } from '../../lib/domain/documents/mrz';
import { PHOTOS_DIR, provision } from '@/test/setup/provision.mjs';

const require = createRequire(import.meta.url);

/** A packaged photo; provisioned here too, so benchmarks and scripts that skip the test setup work alike. */
export function photoPath(name: 'astronaut.png' | 'grace_hopper.jpg'): string {
  const p = path.join(PHOTOS_DIR, name);
  if (!fs.existsSync(p)) provision(['photos']);
  return p;
}

export const astronaut = () => fs.readFileSync(photoPath('astronaut.png'));
export const graceHopper = () => fs.readFileSync(photoPath('grace_hopper.jpg'));
/** face-api's demo photos: collages of 3-6 different faces each. */
export const faceApiSample = (n: 1 | 2 | 3 | 4 | 5 | 6) =>
  fs.readFileSync(
    path.join(path.dirname(require.resolve('@vladmandic/face-api/package.json')), 'demo', `sample${n}.jpg`),
  );

const jpeg = (img: Sharp) => img.jpeg({ quality: 92 }).toBuffer();

/** A 640x480 camera frame: the astronaut's head and shoulders, face centred (the fake camera of the browser tests). */
export const cameraFrame = () =>
  jpeg(sharp(astronaut()).extract({ left: 56, top: 0, width: 400, height: 300 }).resize(640, 480));

/** A 1280x720 JPEG selfie: the astronaut's face large in a landscape frame (a laptop camera). */
export async function selfie1280(): Promise<Buffer> {
  const face = await sharp(astronaut()).resize(720, 720).toBuffer();
  return jpeg(
    sharp({ create: { width: 1280, height: 720, channels: 3, background: { r: 70, g: 80, b: 90 } } }).composite([
      { input: face, left: 280, top: 0 },
    ]),
  );
}

export const blurred = async (img: Buffer, sigma = 6) => jpeg(sharp(img).blur(sigma));
export const darkened = async (img: Buffer) => jpeg(sharp(img).linear(0.15, 0));
export const overexposed = async (img: Buffer) => jpeg(sharp(img).linear(2.6, 60));

/** A solid rectangle over part of the image (fractions of width and height). */
export async function covered(img: Buffer, box: { x: number; y: number; w: number; h: number }, color = '#202020') {
  const { width, height } = await sharp(img).metadata();
  const W = width!;
  const H = height!;
  const svg = `<svg width="${W}" height="${H}"><rect x="${box.x * W}" y="${box.y * H}" width="${box.w * W}" height="${box.h * H}" fill="${color}"/></svg>`;
  return jpeg(sharp(img).composite([{ input: Buffer.from(svg) }]));
}

/** No face: a textured scene (noise and shapes), photo-like in light and sharpness. */
export async function noFace(): Promise<Buffer> {
  const w = 800;
  const h = 600;
  const noise = Buffer.alloc(w * h * 3);
  let s = 12345;
  for (let i = 0; i < noise.length; i++) {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    noise[i] = 90 + (s % 80);
  }
  const svg = `<svg width="${w}" height="${h}"><rect x="80" y="60" width="260" height="400" fill="#3b6ea5"/><circle cx="560" cy="300" r="150" fill="#c8a24a"/><rect x="420" y="470" width="300" height="60" fill="#2d2d2d"/></svg>`;
  return jpeg(sharp(noise, { raw: { width: w, height: h, channels: 3 } }).composite([{ input: Buffer.from(svg) }]));
}

/** Two different people side by side. */
export async function twoFaces(): Promise<Buffer> {
  const a = await sharp(astronaut()).resize(512, 512).toBuffer();
  const b = await sharp(graceHopper()).resize(512, 600, { fit: 'cover' }).resize(512, 512).toBuffer();
  return jpeg(
    sharp({ create: { width: 1024, height: 512, channels: 3, background: '#777' } }).composite([
      { input: a, left: 0, top: 0 },
      { input: b, left: 512, top: 0 },
    ]),
  );
}

/** The astronaut's face small in a large frame (too far from the camera): face height ≈ 0.10 of the frame. */
export async function tinyFace(): Promise<Buffer> {
  const face = await sharp(astronaut()).resize(360, 360).toBuffer();
  return jpeg(
    sharp({ create: { width: 1280, height: 960, channels: 3, background: '#5a6470' } }).composite([
      { input: face, left: 400, top: 300 },
    ]),
  );
}

/** The astronaut's face box in her 512x512 photo, measured by Human: x 152-297, y 50-195. */
export const ASTRONAUT_EYES = { x: 0.3, y: 0.16, w: 0.3, h: 0.1 };
export const ASTRONAUT_MOUTH = { x: 0.36, y: 0.29, w: 0.17, h: 0.09 };

/** A skin-coloured patch (a hand) over the astronaut's right eye. */
export const handOverEye = () => covered(astronaut(), { x: 0.3, y: 0.15, w: 0.14, h: 0.1 }, '#c89b7b');
/** A mask over the astronaut's mouth and nose: light blue (caught) or dark (a known miss). */
export const masked = (color = '#9cc3e6') => covered(astronaut(), { x: 0.29, y: 0.27, w: 0.3, h: 0.13 }, color);

export const tooSmall = async () => jpeg(sharp(astronaut()).resize(200, 150, { fit: 'fill' }));

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf: Buffer) {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function pngChunk(type: string, data: Buffer) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}

/** A decompression bomb: a few hundred bytes of PNG declaring a 30000x30000 image. */
export function pngBomb(size = 30000): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  const idat = require('node:zlib').deflateSync(Buffer.alloc(1024));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', idat),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

export type DocumentKind = 'passport' | 'id_card' | 'driving_licence';

/** Who a synthetic document belongs to. Dates ISO. */
export type Identity = {
  surname: string;
  givenNames: string;
  birthDate: string;
  expiryDate: string;
  documentNumber: string;
  country: string;
  sex: 'M' | 'F';
};
export const DEFAULT_IDENTITY: Identity = {
  surname: 'ERIKSSON',
  givenNames: 'ANNA MARIA',
  birthDate: '1974-08-12',
  expiryDate: '2031-04-15',
  documentNumber: 'L898902C3',
  country: 'UTO',
  sex: 'F',
};

const yymmdd = (iso: string) => iso.slice(2, 4) + iso.slice(5, 7) + iso.slice(8, 10);
const printed = (iso: string) => new Date(iso + 'T00:00:00Z').toUTCString().slice(5, 16).toUpperCase();
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
/** Debian's fonts-ocr-b (the MRZ typeface), from the fonts the test setup unpacks (no system fonts). */
const MRZ_FONT = 'OCR B';

/**
 * A synthetic identity document photographed on a table: an ID-1 card (85.6 x 54 mm) or a passport
 * data page (125 x 88 mm) with printed fields and the portrait on the front, a real ICAO 9303 MRZ (valid
 * check digits, OCR-B) on the passport front and the ID card back, and an AAMVA PDF417 barcode on the
 * licence back. `mrz: 'smudged'` blurs the zone (unreadable), `'none'` leaves it out.
 */
export async function renderDocument(
  kind: DocumentKind,
  side: 'front' | 'back',
  portrait: Buffer = astronaut(),
  who: Partial<Identity> & { mrz?: 'clear' | 'smudged' | 'none'; mrzLines?: string[] } = {},
): Promise<Buffer> {
  // The fonts (.cache/fonts, by FONTCONFIG_FILE) before the first text is rendered; a no-op when the setup did it.
  provision(['fonts']);
  const id = { ...DEFAULT_IDENTITY, ...who };
  const W = 1600;
  const H = 1200;
  const ratio = kind === 'passport' ? 125 / 88 : 85.6 / 54;
  const cw = 1200;
  const ch = Math.round(cw / ratio);
  const card = sharp({
    create: {
      width: cw,
      height: ch,
      channels: 3,
      background: kind === 'passport' ? '#e9e4d6' : kind === 'id_card' ? '#dfe9f2' : '#f1e6da',
    },
  });
  const layers: OverlayOptions[] = [];
  const title = {
    passport: 'PASSPORT · UTOPIA',
    id_card: 'IDENTITY CARD · UTOPIA',
    driving_licence: 'DRIVING LICENCE · UTOPIA',
  }[kind];
  const lines: string[] = [];
  const mrzLines: string[] = [];
  const mrz = (format: 'TD1' | 'TD3') =>
    composeMrz({
      format,
      documentCode: format === 'TD3' ? 'P' : 'ID',
      issuingCountry: id.country,
      surname: id.surname,
      givenNames: id.givenNames,
      documentNumber: id.documentNumber,
      nationality: id.country,
      birthDate: yymmdd(id.birthDate),
      sex: id.sex,
      expiryDate: yymmdd(id.expiryDate),
    });
  if (side === 'front') {
    const p = await sharp(portrait)
      .resize(Math.round(ch * 0.42), Math.round(ch * 0.54), { fit: 'cover', position: 'top' })
      .toBuffer();
    layers.push({ input: p, left: 60, top: 130 });
    const fields = [
      `Surname  ${id.surname}`,
      `Given names  ${id.givenNames}`,
      `Date of birth  ${printed(id.birthDate)}`,
      `Nationality  UTOPIAN`,
      `Document no.  ${id.documentNumber}`,
      `Expiry  ${printed(id.expiryDate)}`,
    ];
    fields.forEach((f, i) =>
      lines.push(
        `<text x="${Math.round(ch * 0.42) + 110}" y="${180 + i * 58}" font-family="DejaVu Sans" font-size="36" fill="#1d2b3a">${esc(f)}</text>`,
      ),
    );
    if (kind === 'passport') mrzLines.push(...mrz('TD3'));
  } else if (kind === 'driving_licence') {
    ['1. Categories  B, A1', '2. Restrictions  none', '3. Issued by  DVLA UTOPIA'].forEach((f, i) =>
      lines.push(
        `<text x="80" y="${140 + i * 56}" font-family="DejaVu Sans" font-size="36" fill="#1d2b3a">${f}</text>`,
      ),
    );
    const text = composeAamva({
      surname: id.surname,
      givenNames: id.givenNames,
      documentNumber: id.documentNumber,
      birthDate: id.birthDate,
      expiryDate: id.expiryDate,
      issuingCountry: id.country,
      sex: id.sex,
    });
    const code = await sharp(Buffer.from(await pdf417Svg(text)))
      .resize({ width: cw - 160, height: Math.round(ch * 0.42), fit: 'fill', kernel: 'nearest' })
      .png()
      .toBuffer();
    layers.push({ input: code, left: 80, top: Math.round(ch * 0.5) });
  } else {
    ['Address  1 MAIN STREET, UTOPIA CITY', 'Height  172 cm', 'Issued  15 APR 2021'].forEach((f, i) =>
      lines.push(
        `<text x="60" y="${140 + i * 56}" font-family="DejaVu Sans" font-size="36" fill="#1d2b3a">${f}</text>`,
      ),
    );
    mrzLines.push(...mrz('TD1'));
  }
  // Printed as given instead (a specimen whose check digits are wrong).
  if (who.mrzLines) mrzLines.splice(0, mrzLines.length, ...who.mrzLines);
  if (who.mrz !== 'none') {
    // The MRZ band: the last lines of the page, as wide as the card allows.
    const size = Math.floor((cw - 80) / ((mrzLines[0]?.length ?? 30) * 0.73)); // OCR-B advances 0.72 em
    const step = Math.round(size * 1.45);
    mrzLines.forEach((l, i) =>
      lines.push(
        `<text x="40" y="${ch - 40 - (mrzLines.length - 1 - i) * step}" font-family="${MRZ_FONT}" font-size="${size}" fill="#111">${esc(l)}</text>`,
      ),
    );
  }
  const svg = `<svg width="${cw}" height="${ch}"><rect x="6" y="6" width="${cw - 12}" height="${ch - 12}" rx="28" fill="none" stroke="#8aa" stroke-width="4"/><text x="60" y="90" font-family="DejaVu Sans" font-weight="bold" font-size="48" fill="#23395d">${title}</text>${lines.join('')}</svg>`;
  layers.push({ input: Buffer.from(svg), left: 0, top: 0 });
  let cardImg = await card.composite(layers).png().toBuffer();
  if (who.mrz === 'smudged' && mrzLines.length > 0) {
    // Ink smudged over the MRZ band: the card is still found and sharp, the zone is unreadable.
    const band = Math.round(ch * (mrzLines.length === 2 ? 0.26 : 0.36));
    const smear = await sharp(cardImg)
      .extract({ left: 0, top: ch - band, width: cw, height: band })
      .blur(9)
      .toBuffer();
    cardImg = await sharp(cardImg)
      .composite([{ input: smear, left: 0, top: ch - band }])
      .png()
      .toBuffer();
  }
  // A dark wooden table: brown with grain noise.
  const table = Buffer.alloc(W * H * 3);
  let s = 99;
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      s = (s * 1103515245 + 12345) & 0x7fffffff;
      const grain = 18 * Math.sin(y / 9 + Math.sin(x / 140) * 3) + (s % 14);
      const i = (y * W + x) * 3;
      table[i] = 92 + grain;
      table[i + 1] = 62 + grain * 0.7;
      table[i + 2] = 40 + grain * 0.5;
    }
  return jpeg(
    sharp(table, { raw: { width: W, height: H, channels: 3 } }).composite([
      { input: cardImg, left: Math.round((W - cw) / 2), top: Math.round((H - ch) / 2) },
    ]),
  );
}

/**
 * Half a face: the astronaut's photo cut through the middle of her face and placed at the left edge of a 640x480
 * frame, so the frame edge cuts the face off (the left half of it is missing).
 */
export async function halfFace(): Promise<Buffer> {
  const right = await sharp(astronaut())
    .extract({ left: 225, top: 0, width: 287, height: 512 })
    .resize({ height: 480 })
    .toBuffer();
  return jpeg(
    sharp({ create: { width: 640, height: 480, channels: 3, background: { r: 70, g: 80, b: 90 } } }).composite([
      { input: right, left: 0, top: 0 },
    ]),
  );
}

/**
 * A studio portrait: the astronaut lit a little brighter in front of a white backdrop that comes close around her
 * head, so it fills the corners of the face box (her face box in the 512x512 photo: x 152-297, y 50-195).
 */
export async function studioPortrait(): Promise<Buffer> {
  const lit = await sharp(astronaut()).linear(1.2, 16).toBuffer();
  const mask = Buffer.from(
    `<svg width="512" height="512"><rect width="512" height="512" fill="#fff"/><ellipse cx="224" cy="124" rx="56" ry="80" fill="#000"/><rect x="110" y="205" width="240" height="307" fill="#000"/><rect x="180" y="160" width="92" height="60" fill="#000"/></svg>`,
  );
  // White wherever the mask is white: the backdrop around the head and shoulders.
  return jpeg(sharp(lit).composite([{ input: await sharp(mask).png().toBuffer(), blend: 'lighten' }]));
}

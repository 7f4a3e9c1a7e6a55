/**
 * A synthetic document photographed as a phone would: the flat card of test/helpers/images.ts renderDocument laid on
 * a surface (plain, wood or cluttered with other print), turned (any angle, quarter turns included), tilted in
 * perspective (the far edge shorter), with a glare spot, soft focus, downscaling and JPEG. Deterministic for a seed.
 */
import sharp from 'sharp';
import { renderDocument, type DocumentKind, type Identity } from './images';

export type PhoneShot = {
  /** in-plane rotation, degrees (90, 180, 270 for quarter turns; any other angle) */
  rotate?: number;
  /** perspective tilt of the card away from the camera, degrees (0-35): the far edge is shorter */
  tilt?: number;
  /** the card's long side as a share of the frame's long side */
  fill?: number;
  /** a glare spot: centre as a share of the card (0-1, 0-1), radius as a share of the card's long side, strength 0-1 */
  glare?: { x: number; y: number; r: number; strength: number };
  /** Gaussian blur sigma (soft focus), in output pixels */
  blur?: number;
  /** output size (long side) */
  size?: number;
  background?: 'wood' | 'clutter' | 'plain';
  quality?: number;
  seed?: number;
};

/** The flat card, cut from renderDocument's 1600x1200 table photo (where it lies centred, 1200 pixels wide). */
export async function flatCard(
  kind: DocumentKind,
  side: 'front' | 'back',
  who: Partial<Identity> & { mrz?: 'clear' | 'smudged' | 'none'; mrzLines?: string[] } = {},
  portrait?: Buffer,
): Promise<Buffer> {
  const ratio = kind === 'passport' ? 125 / 88 : 85.6 / 54;
  const ch = Math.round(1200 / ratio);
  const photo = await renderDocument(kind, side, portrait, who);
  return sharp(photo)
    .extract({ left: 200, top: Math.round((1200 - ch) / 2), width: 1200, height: ch })
    .png()
    .toBuffer();
}

function rng(seed: number) {
  let s = seed >>> 0 || 1;
  return () => (s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
}

/** Solves the 3x3 homography mapping the four `from` points to the four `to` points (8 unknowns, h33 = 1). */
function homography(from: number[][], to: number[][]): number[] {
  const A: number[][] = [];
  for (let i = 0; i < 4; i++) {
    const [x, y] = from[i];
    const [u, v] = to[i];
    A.push([x, y, 1, 0, 0, 0, -u * x, -u * y, u]);
    A.push([0, 0, 0, x, y, 1, -v * x, -v * y, v]);
  }
  for (let c = 0; c < 8; c++) {
    let p = c;
    for (let r = c + 1; r < 8; r++) if (Math.abs(A[r][c]) > Math.abs(A[p][c])) p = r;
    [A[c], A[p]] = [A[p], A[c]];
    for (let r = 0; r < 8; r++) {
      if (r === c) continue;
      const f = A[r][c] / A[c][c];
      for (let k = c; k < 9; k++) A[r][k] -= f * A[c][k];
    }
  }
  return [...A.map((row, i) => row[8] / row[i]), 1];
}

async function background(kind: PhoneShot['background'], W: number, H: number, rand: () => number): Promise<Buffer> {
  const bg = Buffer.alloc(W * H * 3);
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      const i = (y * W + x) * 3;
      const n = rand() * 12;
      if (kind === 'plain') {
        bg[i] = 60 + n;
        bg[i + 1] = 64 + n;
        bg[i + 2] = 70 + n;
      } else {
        const grain = 18 * Math.sin(y / 9 + Math.sin(x / 140) * 3) + n;
        bg[i] = 92 + grain;
        bg[i + 1] = 62 + grain * 0.7;
        bg[i + 2] = 40 + grain * 0.5;
      }
    }
  let img = sharp(bg, { raw: { width: W, height: H, channels: 3 } });
  if (kind === 'clutter') {
    // Other things on the table: a receipt with print, a pen, a coaster.
    const words = Array.from(
      { length: 14 },
      (_, k) =>
        `<text x="20" y="${40 + k * 30}" font-family="DejaVu Sans" font-size="20" fill="#333">ITEM ${k + 1}  ${(rand() * 99).toFixed(2)}  TOTAL</text>`,
    ).join('');
    const svg = `<svg width="${W}" height="${H}"><g transform="translate(${W * 0.02},${H * 0.05}) rotate(-8)"><rect width="${W * 0.2}" height="${H * 0.8}" fill="#f4f1ea"/>${words}</g><rect x="${W * 0.8}" y="${H * 0.1}" width="${W * 0.018}" height="${H * 0.5}" rx="8" fill="#1a3f8f" transform="rotate(12 ${W * 0.8} ${H * 0.1})"/><circle cx="${W * 0.9}" cy="${H * 0.82}" r="${H * 0.12}" fill="#c9b18a"/></svg>`;
    img = sharp(await img.png().toBuffer()).composite([{ input: Buffer.from(svg), left: 0, top: 0 }]);
  }
  return img.removeAlpha().raw().toBuffer();
}

/** The phone photo of a flat card image (PNG/JPEG), as JPEG. */
export async function phonePhoto(card: Buffer, shot: PhoneShot = {}): Promise<Buffer> {
  const rand = rng(shot.seed ?? 7);
  const { data: cardRgb, info } = await sharp(card).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const cw = info.width;
  const ch = info.height;
  const W = 1600;
  const H = 1200;
  const bg = await background(shot.background ?? 'wood', W, H, rand);
  // The card's corners on the table, before the camera: centred, `fill` of the frame's long side.
  const fill = shot.fill ?? 0.7;
  const s = (W * fill) / cw;
  const hw = (cw * s) / 2;
  const hh = (ch * s) / 2;
  // Tilt: the far (top) edge recedes, shorter by the perspective of a card tilted by `tilt` degrees.
  const t = ((shot.tilt ?? 0) * Math.PI) / 180;
  const shrink = 1 - 0.9 * Math.sin(t) * (hh / W) * 2;
  const corners = [
    [-hw * shrink, -hh * Math.cos(t)],
    [hw * shrink, -hh * Math.cos(t)],
    [hw, hh],
    [-hw, hh],
  ];
  const a = ((shot.rotate ?? 0) * Math.PI) / 180;
  const placed = corners.map(([x, y]) => [
    W / 2 + x * Math.cos(a) - y * Math.sin(a),
    H / 2 + x * Math.sin(a) + y * Math.cos(a),
  ]);
  // Output pixel -> card pixel.
  const Hm = homography(placed, [
    [0, 0],
    [cw, 0],
    [cw, ch],
    [0, ch],
  ]);
  const out = Buffer.from(bg);
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      const d = Hm[6] * x + Hm[7] * y + Hm[8];
      const u = (Hm[0] * x + Hm[1] * y + Hm[2]) / d;
      const v = (Hm[3] * x + Hm[4] * y + Hm[5]) / d;
      if (u < 0 || v < 0 || u >= cw - 1 || v >= ch - 1) continue;
      const u0 = Math.floor(u);
      const v0 = Math.floor(v);
      const fu = u - u0;
      const fv = v - v0;
      const o = (y * W + x) * 3;
      for (let c = 0; c < 3; c++) {
        const p = (v0 * cw + u0) * 3 + c;
        const top = cardRgb[p] * (1 - fu) + cardRgb[p + 3] * fu;
        const bot = cardRgb[p + cw * 3] * (1 - fu) + cardRgb[p + cw * 3 + 3] * fu;
        let val = top * (1 - fv) + bot * fv;
        if (shot.glare) {
          const g = shot.glare;
          const dist = Math.hypot(u / cw - g.x, ((v / ch - g.y) * ch) / cw) / g.r;
          val = val + (255 - val) * g.strength * Math.exp(-dist * dist * 2);
        }
        out[o + c] = Math.round(val);
      }
    }
  let img = sharp(out, { raw: { width: W, height: H, channels: 3 } });
  const size = shot.size ?? 1600;
  if (size !== W) img = sharp(await img.resize({ width: size }).png().toBuffer());
  if (shot.blur) img = img.blur(shot.blur);
  return img.jpeg({ quality: shot.quality ?? 85 }).toBuffer();
}

/** A document of `kind` photographed by a phone: the side that carries the MRZ or barcode unless `side` says. */
export async function phoneDocument(
  kind: DocumentKind,
  shot: PhoneShot = {},
  who: Partial<Identity> & { mrz?: 'clear' | 'smudged' | 'none' } = {},
  side?: 'front' | 'back',
): Promise<Buffer> {
  return phonePhoto(await flatCard(kind, side ?? (kind === 'passport' ? 'front' : 'back'), who), shot);
}

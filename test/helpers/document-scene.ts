/**
 * A synthetic document photographed by a phone held over a table: one of test/helpers/images.ts's documents
 * (passport data page, ID card, licence), placed in perspective (moved, turned, tilted), with an optional glare
 * spot and blur, on a wooden or grey table. The document's four corners in the picture are returned with it, so a
 * test knows where the outline must be. Used by the capture page's document guide (its tests, and the fake camera
 * of the browser tests).
 */
import sharp from 'sharp';
import { astronaut, renderDocument, type DocumentKind } from './images';

export type Corner = { x: number; y: number };
export type Scene = {
  kind?: DocumentKind;
  side?: 'front' | 'back';
  portrait?: Buffer;
  width?: number;
  height?: number;
  /** the document's centre, as shares of the frame */
  cx?: number;
  cy?: number;
  /** the document's width as a share of the frame's width (before tilt) */
  scale?: number;
  /** turned in the picture's plane, degrees */
  rotate?: number;
  /** tilted away at the top: the far edge shorter by this share (0.25 ≈ 30° of tilt) */
  tilt?: number;
  /** a glare spot: centre and radius as shares of the document's width */
  glare?: { x: number; y: number; r: number };
  /** Gaussian blur of the whole picture (soft focus, a shaking hand) */
  blur?: number;
  table?: 'wood' | 'grey';
};

/** The card's rectangle in renderDocument's 1600 x 1200 picture (its layout: 1200 wide, centred). */
function cardRect(kind: DocumentKind) {
  const ratio = kind === 'passport' ? 125 / 88 : 85.6 / 54;
  const ch = Math.round(1200 / ratio);
  return { left: 200, top: Math.round((1200 - ch) / 2), width: 1200, height: ch };
}

/** Solves A x = b (8 x 8) by Gaussian elimination with partial pivoting. */
function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r][c]) > Math.abs(m[p][c])) p = r;
    [m[c], m[p]] = [m[p], m[c]];
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = m[r][c] / m[c][c];
      for (let k = c; k <= n; k++) m[r][k] -= f * m[c][k];
    }
  }
  return m.map((row, i) => row[n] / row[i]);
}

/** The homography taking each `from` point to its `to` point: [h0..h7], h8 = 1. */
export function homography(from: Corner[], to: Corner[]): number[] {
  const a: number[][] = [];
  const b: number[] = [];
  for (let i = 0; i < 4; i++) {
    const { x, y } = from[i];
    const { x: u, y: v } = to[i];
    a.push([x, y, 1, 0, 0, 0, -u * x, -u * y]);
    b.push(u);
    a.push([0, 0, 0, x, y, 1, -v * x, -v * y]);
    b.push(v);
  }
  return solve(a, b);
}

function tableTexture(w: number, h: number, kind: 'wood' | 'grey') {
  const px = Buffer.alloc(w * h * 3);
  let s = 7;
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      s = (s * 1103515245 + 12345) & 0x7fffffff;
      const i = (y * w + x) * 3;
      if (kind === 'wood') {
        const grain = 16 * Math.sin(y / 8 + Math.sin(x / 120) * 3) + (s % 12);
        px[i] = 88 + grain;
        px[i + 1] = 60 + grain * 0.7;
        px[i + 2] = 40 + grain * 0.5;
      } else {
        const v = 70 + (s % 10);
        px[i] = v;
        px[i + 1] = v + 2;
        px[i + 2] = v + 6;
      }
    }
  return px;
}

/** The picture (JPEG) and the document's corners in it: top left, top right, bottom right, bottom left. */
export async function documentScene(
  o: Scene = {},
): Promise<{ jpeg: Buffer; corners: Corner[]; width: number; height: number }> {
  const kind = o.kind ?? 'passport';
  const W = o.width ?? 960;
  const H = o.height ?? 720;
  const rect = cardRect(kind);
  // As a camera exposes a document in ordinary light: its white paper at about 230, not the renderer's 255 (only a
  // specular reflection, the glare spot below, clips).
  let card = await sharp(await renderDocument(kind, o.side ?? 'front', o.portrait ?? astronaut()))
    .extract(rect)
    .linear(0.9, 0)
    .png()
    .toBuffer();
  if (o.glare) {
    const r = o.glare.r * rect.width;
    const svg = `<svg width="${rect.width}" height="${rect.height}"><defs><radialGradient id="g"><stop offset="0" stop-color="#fff" stop-opacity="1"/><stop offset="0.55" stop-color="#fff" stop-opacity="1"/><stop offset="1" stop-color="#fff" stop-opacity="0"/></radialGradient></defs><circle cx="${o.glare.x * rect.width}" cy="${o.glare.y * rect.height}" r="${r}" fill="url(#g)"/></svg>`;
    card = await sharp(card)
      .composite([{ input: Buffer.from(svg) }])
      .png()
      .toBuffer();
  }
  const src = await sharp(card).removeAlpha().raw().toBuffer();
  // Where the card's corners land: scaled, tilted (the top edge shortened), turned, moved.
  const dw = (o.scale ?? 0.7) * W;
  const dh = (dw * rect.height) / rect.width;
  const t = o.tilt ?? 0;
  const local = [
    { x: (-dw / 2) * (1 - t), y: -dh / 2 },
    { x: (dw / 2) * (1 - t), y: -dh / 2 },
    { x: dw / 2, y: dh / 2 },
    { x: -dw / 2, y: dh / 2 },
  ];
  const a = ((o.rotate ?? 0) * Math.PI) / 180;
  const cx = (o.cx ?? 0.5) * W;
  const cy = (o.cy ?? 0.5) * H;
  const corners = local.map((p) => ({
    x: cx + p.x * Math.cos(a) - p.y * Math.sin(a),
    y: cy + p.x * Math.sin(a) + p.y * Math.cos(a),
  }));
  const cardCorners = [
    { x: 0, y: 0 },
    { x: rect.width, y: 0 },
    { x: rect.width, y: rect.height },
    { x: 0, y: rect.height },
  ];
  const m = homography(corners, cardCorners); // picture → card
  const out = tableTexture(W, H, o.table ?? 'wood');
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      const px = x + 0.5;
      const py = y + 0.5;
      const d = m[6] * px + m[7] * py + 1;
      const u = (m[0] * px + m[1] * py + m[2]) / d - 0.5;
      const v = (m[3] * px + m[4] * py + m[5]) / d - 0.5;
      if (u < 0 || v < 0 || u > rect.width - 1 || v > rect.height - 1) continue;
      const x0 = Math.floor(u);
      const y0 = Math.floor(v);
      const fx = u - x0;
      const fy = v - y0;
      const x1 = Math.min(x0 + 1, rect.width - 1);
      const y1 = Math.min(y0 + 1, rect.height - 1);
      const o2 = (y * W + x) * 3;
      for (let c = 0; c < 3; c++) {
        const p00 = src[(y0 * rect.width + x0) * 3 + c];
        const p10 = src[(y0 * rect.width + x1) * 3 + c];
        const p01 = src[(y1 * rect.width + x0) * 3 + c];
        const p11 = src[(y1 * rect.width + x1) * 3 + c];
        out[o2 + c] = Math.round(p00 * (1 - fx) * (1 - fy) + p10 * fx * (1 - fy) + p01 * (1 - fx) * fy + p11 * fx * fy);
      }
    }
  let img = sharp(out, { raw: { width: W, height: H, channels: 3 } });
  if (o.blur) img = img.blur(o.blur);
  return { jpeg: await img.jpeg({ quality: 90 }).toBuffer(), corners, width: W, height: H };
}

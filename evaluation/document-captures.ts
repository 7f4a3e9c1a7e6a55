/**
 * Phone-like captures of a document image: the document laid on a table and photographed as a phone would,
 * with a perspective tilt (up to about 30°), a small in-plane rotation and sometimes a quarter turn, a glare
 * spot, uneven light, soft focus, sensor noise and JPEG. Everything is drawn from a seeded generator, so the
 * same seed and image give the same bytes. Used by `npm run make:document-captures` and the tests.
 *
 * Only sharp and arithmetic: the perspective is an inverse mapping through a homography, sampled bilinearly.
 */
import crypto from 'node:crypto';
import sharp from 'sharp';
import { seeded } from './stats';

/** Any text as a seed of stats.ts' `seeded` generator (mulberry32). */
export const seedOf = (text: string) => crypto.createHash('sha256').update(text).digest().readUInt32LE(0);

export type Surface = 'dark_wood' | 'grey_cloth' | 'dark_desk_clutter' | 'light_wood';
export const SURFACES: Surface[] = ['dark_wood', 'grey_cloth', 'dark_desk_clutter', 'light_wood'];

/** What was done to one capture (written to the manifest, so a failure can be looked at by its cause). */
export type CaptureParams = {
  surface: Surface;
  /** quarter turns of the document, clockwise (0-3) */
  quarter: number;
  /** in-plane rotation after the quarter turn, degrees */
  rotation: number;
  /** the page's tilt away from the camera about its horizontal and vertical axes, degrees; sqrt(x²+y²) ≤ max tilt */
  tilt_x: number;
  tilt_y: number;
  /** the width of the document's projected box, as a share of the frame's width (capped at 90 % of its height) */
  fill: number;
  /** the glare spot: centre on the document (0-1 each way), radius as a share of the document's width, peak opacity */
  glare: { x: number; y: number; radius: number; strength: number } | null;
  /** Gaussian blur sigma in pixels of the output (soft focus); 0 = none */
  blur: number;
  noise: number;
  jpeg_quality: number;
  width: number;
  height: number;
};

export type CaptureOptions = {
  maxTilt?: number;
  glareChance?: number;
  quarterTurnChance?: number;
  surfaces?: Surface[];
};

/** Draws the parameters of one capture. */
export function drawParams(r: () => number, o: CaptureOptions = {}): CaptureParams {
  const maxTilt = o.maxTilt ?? 30;
  const between = (a: number, b: number) => a + (b - a) * r();
  const surfaces = o.surfaces ?? SURFACES;
  const surface = surfaces[Math.floor(r() * surfaces.length)];
  const quarter = r() < (o.quarterTurnChance ?? 0.35) ? 1 + Math.floor(r() * 3) : 0;
  const tiltTotal = maxTilt * Math.sqrt(r());
  const dir = r() * 2 * Math.PI;
  const portrait = r() < 0.4;
  const glare =
    r() < (o.glareChance ?? 0.7)
      ? { x: between(0.15, 0.85), y: between(0.15, 0.85), radius: between(0.08, 0.2), strength: between(0.35, 0.8) }
      : null;
  return {
    surface,
    quarter,
    rotation: Math.round(between(-8, 8) * 10) / 10,
    tilt_x: Math.round(tiltTotal * Math.cos(dir) * 10) / 10,
    tilt_y: Math.round(tiltTotal * Math.sin(dir) * 10) / 10,
    fill: Math.round(between(0.55, 0.85) * 100) / 100,
    glare: glare && {
      x: round2(glare.x),
      y: round2(glare.y),
      radius: round2(glare.radius),
      strength: round2(glare.strength),
    },
    blur: Math.round(between(0.4, 1.6) * 10) / 10,
    noise: Math.round(between(2, 7) * 10) / 10,
    jpeg_quality: Math.round(between(72, 90)),
    width: portrait ? 1200 : 1600,
    height: portrait ? 1600 : 1200,
  };
}
const round2 = (x: number) => Math.round(x * 100) / 100;

/** The 3x3 homography taking the four `from` points to the four `to` points (a solved 8x8 system). */
export function homography(from: [number, number][], to: [number, number][]): number[] {
  const A: number[][] = [];
  const b: number[] = [];
  for (let i = 0; i < 4; i++) {
    const [x, y] = from[i];
    const [u, v] = to[i];
    A.push([x, y, 1, 0, 0, 0, -u * x, -u * y]);
    b.push(u);
    A.push([0, 0, 0, x, y, 1, -v * x, -v * y]);
    b.push(v);
  }
  // Gaussian elimination with partial pivoting.
  for (let c = 0; c < 8; c++) {
    let p = c;
    for (let r = c + 1; r < 8; r++) if (Math.abs(A[r][c]) > Math.abs(A[p][c])) p = r;
    [A[c], A[p]] = [A[p], A[c]];
    [b[c], b[p]] = [b[p], b[c]];
    for (let r = c + 1; r < 8; r++) {
      const f = A[r][c] / A[c][c];
      for (let k = c; k < 8; k++) A[r][k] -= f * A[c][k];
      b[r] -= f * b[c];
    }
  }
  const h = new Array(8).fill(0);
  for (let r = 7; r >= 0; r--) {
    let s = b[r];
    for (let k = r + 1; k < 8; k++) s -= A[r][k] * h[k];
    h[r] = s / A[r][r];
  }
  return [...h, 1];
}

/**
 * Where the document's corners land in the frame: the page (w x h) rotated in its plane, tilted about its
 * horizontal and vertical axes, seen through a pinhole at 2.2 page widths, scaled so its width takes `fill` of
 * the frame's width, and centred with a small offset. Corners in the order top-left, top-right, bottom-right,
 * bottom-left of the (already quarter-turned) page.
 */
export function projectCorners(w: number, h: number, p: CaptureParams, r: () => number): [number, number][] {
  const rad = (d: number) => (d * Math.PI) / 180;
  const [cz, sz] = [Math.cos(rad(p.rotation)), Math.sin(rad(p.rotation))];
  const [cx, sx] = [Math.cos(rad(p.tilt_x)), Math.sin(rad(p.tilt_x))];
  const [cy, sy] = [Math.cos(rad(p.tilt_y)), Math.sin(rad(p.tilt_y))];
  const D = 2.2 * Math.max(w, h);
  const pts = (
    [
      [-w / 2, -h / 2],
      [w / 2, -h / 2],
      [w / 2, h / 2],
      [-w / 2, h / 2],
    ] as [number, number][]
  ).map(([x, y]) => {
    // in-plane rotation, then about x (tilt_x), then about y (tilt_y)
    const x1 = x * cz - y * sz;
    const y1 = x * sz + y * cz;
    const y2 = y1 * cx;
    const z2 = y1 * sx;
    const x3 = x1 * cy + z2 * sy;
    const z3 = -x1 * sy + z2 * cy;
    return [(x3 * D) / (D + z3), (y2 * D) / (D + z3)] as [number, number];
  });
  const xs = pts.map((q) => q[0]);
  const ys = pts.map((q) => q[1]);
  const bw = Math.max(...xs) - Math.min(...xs);
  const bh = Math.max(...ys) - Math.min(...ys);
  // The page's projected box takes `fill` of the frame's width, and never more than 90 % of its height.
  const scale = Math.min((p.fill * p.width) / bw, (0.9 * p.height) / bh);
  const room = [(p.width - bw * scale) / 2, (p.height - bh * scale) / 2];
  const off = [(r() - 0.5) * room[0], (r() - 0.5) * room[1]];
  const mx = (Math.max(...xs) + Math.min(...xs)) / 2;
  const my = (Math.max(...ys) + Math.min(...ys)) / 2;
  return pts.map(([x, y]) => [p.width / 2 + off[0] + (x - mx) * scale, p.height / 2 + off[1] + (y - my) * scale]);
}

/** A table top of `surface`, RGB raw, drawn from `r`. */
export function surfaceImage(surface: Surface, W: number, H: number, r: () => number): Buffer {
  const out = Buffer.alloc(W * H * 3);
  const base = {
    dark_wood: [88, 58, 38],
    grey_cloth: [70, 72, 76],
    dark_desk_clutter: [46, 48, 54],
    light_wood: [176, 142, 104],
  }[surface];
  const phase = r() * 100;
  const freq = 6 + r() * 8;
  let s = Math.floor(r() * 1e9);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      s = (s * 1103515245 + 12345) & 0x7fffffff;
      const n = (s % 17) - 8;
      let g = 0;
      if (surface === 'dark_wood' || surface === 'light_wood')
        g = 7 * Math.sin(y / freq + Math.sin(x / 150 + phase) * 3) + 5 * Math.sin(y / (freq * 4.7) + x / 900 + phase);
      else if (surface === 'grey_cloth') g = 6 * Math.sin(x / 2.1) * Math.sin(y / 2.3);
      const i = (y * W + x) * 3;
      out[i] = clamp(base[0] + g + n);
      out[i + 1] = clamp(base[1] + g * 0.7 + n);
      out[i + 2] = clamp(base[2] + g * 0.5 + n);
    }
  }
  if (surface === 'dark_desk_clutter') {
    // Things on the desk: a sheet of printed paper, a pen, a mug's rim, a sticky note, a phone.
    const things = 3 + Math.floor(r() * 3);
    for (let t = 0; t < things; t++) {
      const kind = Math.floor(r() * 4);
      const cx = r() * W;
      const cy = r() * H;
      const colour = [
        [225, 225, 218],
        [30, 60, 150],
        [200, 60, 50],
        [240, 220, 90],
      ][kind];
      const [hw, hh] = kind === 0 ? [W * 0.25, H * 0.3] : kind === 1 ? [W * 0.2, 6] : kind === 2 ? [70, 70] : [60, 60];
      const ang = r() * Math.PI;
      const [ca, sa] = [Math.cos(ang), Math.sin(ang)];
      const reach = Math.ceil(Math.hypot(hw, hh));
      for (let y = Math.max(0, Math.floor(cy - reach)); y < Math.min(H, cy + reach); y++) {
        for (let x = Math.max(0, Math.floor(cx - reach)); x < Math.min(W, cx + reach); x++) {
          const dx = x - cx;
          const dy = y - cy;
          const u = dx * ca + dy * sa;
          const v = -dx * sa + dy * ca;
          const inside = kind === 2 ? Math.abs(Math.hypot(dx, dy) - hw) < 8 : Math.abs(u) < hw && Math.abs(v) < hh;
          if (!inside) continue;
          const i = (y * W + x) * 3;
          // printed lines on the paper
          const ink =
            kind === 0 &&
            Math.abs(v) < hh - 20 &&
            Math.abs(u) < hw - 20 &&
            Math.floor((v + hh) / 14) % 2 === 0 &&
            Math.floor(u / 9) % 7 !== 0
              ? -150
              : 0;
          out[i] = clamp(colour[0] + ink);
          out[i + 1] = clamp(colour[1] + ink);
          out[i + 2] = clamp(colour[2] + ink);
        }
      }
    }
  }
  return out;
}
const clamp = (v: number) => (v < 0 ? 0 : v > 255 ? 255 : Math.round(v));

/**
 * One capture of `image` (any format sharp reads; EXIF orientation applied first, a transparent background made
 * white paper) with parameters `p`;
 * `r` continues to draw the small things (offset, surface grain, noise).
 */
export async function renderCapture(image: Uint8Array, p: CaptureParams, r: () => number): Promise<Buffer> {
  const turned = await sharp(image)
    .rotate()
    .rotate(p.quarter * 90)
    .flatten({ background: '#ffffff' })
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const { width: sw, height: sh } = turned.info;
  const src = turned.data;
  const W = p.width;
  const H = p.height;
  const corners = projectCorners(sw, sh, p, r);
  // Inverse map: frame pixel -> page pixel.
  const inv = homography(corners, [
    [0, 0],
    [sw, 0],
    [sw, sh],
    [0, sh],
  ]);
  const out = surfaceImage(p.surface, W, H, r);
  // A soft shadow under the page's edge: darken the table just outside it.
  const fwd = homography(
    [
      [0, 0],
      [sw, 0],
      [sw, sh],
      [0, sh],
    ],
    corners,
  );
  const docWidthPx = Math.hypot(corners[1][0] - corners[0][0], corners[1][1] - corners[0][1]);
  const glare = p.glare;
  const glareCentre = glare ? apply(fwd, glare.x * sw, glare.y * sh) : null;
  const glareR = glare ? glare.radius * docWidthPx : 0;
  // Uneven light: a gentle gradient across the frame.
  const lightAngle = r() * 2 * Math.PI;
  const [lx, ly] = [Math.cos(lightAngle), Math.sin(lightAngle)];
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const d = inv[6] * x + inv[7] * y + inv[8];
      const u = (inv[0] * x + inv[1] * y + inv[2]) / d;
      const v = (inv[3] * x + inv[4] * y + inv[5]) / d;
      const i = (y * W + x) * 3;
      const light = 1 + 0.12 * (((x / W - 0.5) * lx + (y / H - 0.5) * ly) * 2);
      if (u >= 0 && v >= 0 && u <= sw - 1 && v <= sh - 1) {
        const x0 = Math.floor(u);
        const y0 = Math.floor(v);
        const x1 = Math.min(x0 + 1, sw - 1);
        const y1 = Math.min(y0 + 1, sh - 1);
        const fx = u - x0;
        const fy = v - y0;
        let g = 0;
        if (glareCentre) {
          const dist = Math.hypot(x - glareCentre[0], y - glareCentre[1]) / glareR;
          g = glare!.strength * Math.exp(-dist * dist * 1.6);
        }
        for (let c = 0; c < 3; c++) {
          const a = src[(y0 * sw + x0) * 3 + c] * (1 - fx) + src[(y0 * sw + x1) * 3 + c] * fx;
          const b = src[(y1 * sw + x0) * 3 + c] * (1 - fx) + src[(y1 * sw + x1) * 3 + c] * fx;
          const val = (a * (1 - fy) + b * fy) * light;
          out[i + c] = clamp(val + (255 - val) * g);
        }
      } else {
        // shadow: within ~1.5 % of the page's size outside its edge
        const du = u < 0 ? -u : u > sw ? u - sw : 0;
        const dv = v < 0 ? -v : v > sh ? v - sh : 0;
        const near = Math.max(du / sw, dv / sh);
        const shade = near < 0.015 ? 0.6 + 0.4 * (near / 0.015) : 1;
        for (let c = 0; c < 3; c++) out[i + c] = clamp(out[i + c] * shade * light);
      }
    }
  }
  // Sensor noise.
  let s = Math.floor(r() * 1e9);
  for (let i = 0; i < out.length; i++) {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    out[i] = clamp(out[i] + ((s % 1000) / 1000 - 0.5) * 2 * p.noise);
  }
  let img = sharp(out, { raw: { width: W, height: H, channels: 3 } });
  if (p.blur >= 0.3) img = img.blur(p.blur);
  return img.jpeg({ quality: p.jpeg_quality, mozjpeg: false }).toBuffer();
}

function apply(h: number[], x: number, y: number): [number, number] {
  const d = h[6] * x + h[7] * y + h[8];
  return [(h[0] * x + h[1] * y + h[2]) / d, (h[3] * x + h[4] * y + h[5]) / d];
}

/** The capture number `index` of an image: its parameters are drawn from `seed`, the source's name and `index`. */
export async function makeCapture(
  image: Uint8Array,
  opts: { seed: string; name: string; index: number } & CaptureOptions,
): Promise<{ bytes: Buffer; params: CaptureParams }> {
  const r = seeded(seedOf(`${opts.seed}\0${opts.name}\0${opts.index}`));
  const params = drawParams(r, opts);
  return { bytes: await renderCapture(image, params, r), params };
}

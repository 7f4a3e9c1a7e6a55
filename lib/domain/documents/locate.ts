/**
 * Finding the machine-readable zone in a photo and rectifying it, in plain JavaScript on sharp's raw pixels (no
 * OpenCV): wherever the document lies in the frame, at any quarter turn, tilted in perspective, on a busy surface.
 * Text pixels, joined into blobs; the MRZ is the long, straight, evenly filled one, warped to a straight band
 * (the three steps: docs/architecture.md "Notes behind the code"). The OCR (lib/domain/documents/ocr.ts) reads
 * the bands; only check-digit-valid reads count, so trying a candidate that is not the MRZ costs time, never a
 * wrong date.
 */

export type Grey = { data: Uint8Array; width: number; height: number };
/** A quadrilateral in source pixels: top-left, top-right, bottom-right, bottom-left as read (the text's own up). */
export type Quad = [[number, number], [number, number], [number, number], [number, number]];
export type Candidate = { quad: Quad; score: number; elongation: number };

/** Separable running max (dilate) or min (erode) over a kw x kh window. */
function morph(src: Uint8Array, w: number, h: number, kw: number, kh: number, max: boolean): Uint8Array {
  const tmp = new Uint8Array(w * h);
  const out = new Uint8Array(w * h);
  const rx = kw >> 1;
  const ry = kh >> 1;
  for (let y = 0; y < h; y++) {
    const row = y * w;
    for (let x = 0; x < w; x++) {
      let v = max ? 0 : 255;
      const x0 = Math.max(0, x - rx);
      const x1 = Math.min(w - 1, x + rx);
      for (let i = x0; i <= x1; i++) {
        const s = src[row + i];
        if (max ? s > v : s < v) v = s;
      }
      tmp[row + x] = v;
    }
  }
  for (let y = 0; y < h; y++) {
    const y0 = Math.max(0, y - ry);
    const y1 = Math.min(h - 1, y + ry);
    for (let x = 0; x < w; x++) {
      let v = max ? 0 : 255;
      for (let j = y0; j <= y1; j++) {
        const s = tmp[j * w + x];
        if (max ? s > v : s < v) v = s;
      }
      out[y * w + x] = v;
    }
  }
  return out;
}

const close = (a: Uint8Array, w: number, h: number, kw: number, kh: number) =>
  morph(morph(a, w, h, kw, kh, true), w, h, kw, kh, false);

function otsu(a: Uint8Array): number {
  const hist = new Float64Array(256);
  for (const v of a) hist[v]++;
  const n = a.length;
  let sum = 0;
  for (let i = 0; i < 256; i++) sum += i * hist[i];
  let sumB = 0;
  let wB = 0;
  let best = 0;
  let th = 128;
  for (let t = 0; t < 256; t++) {
    wB += hist[t];
    if (wB === 0) continue;
    const wF = n - wB;
    if (wF === 0) break;
    sumB += t * hist[t];
    const mB = sumB / wB;
    const mF = (sum - sumB) / wF;
    const between = wB * wF * (mB - mF) ** 2;
    if (between > best) {
      best = between;
      th = t;
    }
  }
  return th;
}

/** Text pixels: the black-hat of dark print, its gradient magnitude, thresholded. */
export function textMask(g: Grey, kernel: number): Uint8Array {
  const { data, width: w, height: h } = g;
  const closed = close(data, w, h, kernel, kernel);
  const hat = new Uint8Array(w * h);
  for (let i = 0; i < hat.length; i++) hat[i] = closed[i] - data[i];
  const grad = new Float32Array(w * h);
  let mx = 0;
  for (let y = 1; y < h - 1; y++)
    for (let x = 1; x < w - 1; x++) {
      const i = y * w + x;
      const gx = hat[i - w + 1] + 2 * hat[i + 1] + hat[i + w + 1] - hat[i - w - 1] - 2 * hat[i - 1] - hat[i + w - 1];
      const gy = hat[i + w - 1] + 2 * hat[i + w] + hat[i + w + 1] - hat[i - w - 1] - 2 * hat[i - w] - hat[i - w + 1];
      const m = Math.abs(gx) + Math.abs(gy);
      grad[i] = m;
      if (m > mx) mx = m;
    }
  const g8 = new Uint8Array(w * h);
  if (mx > 0) for (let i = 0; i < g8.length; i++) g8[i] = Math.round((grad[i] / mx) * 255);
  const th = Math.max(otsu(g8), 20);
  const mask = new Uint8Array(w * h);
  for (let i = 0; i < mask.length; i++) mask[i] = g8[i] > th ? 255 : 0;
  return mask;
}

type Blob = { xs: Int32Array; ys: Int32Array; n: number };

function components(mask: Uint8Array, w: number, h: number, minPixels: number): Blob[] {
  const label = new Int32Array(w * h);
  const out: Blob[] = [];
  const stack = new Int32Array(w * h);
  let next = 1;
  for (let s = 0; s < w * h; s++) {
    if (!mask[s] || label[s]) continue;
    let sp = 0;
    stack[sp++] = s;
    label[s] = next;
    const pix: number[] = [];
    while (sp) {
      const i = stack[--sp];
      pix.push(i);
      const x = i % w;
      if (x > 0 && mask[i - 1] && !label[i - 1]) {
        label[i - 1] = next;
        stack[sp++] = i - 1;
      }
      if (x < w - 1 && mask[i + 1] && !label[i + 1]) {
        label[i + 1] = next;
        stack[sp++] = i + 1;
      }
      if (i >= w && mask[i - w] && !label[i - w]) {
        label[i - w] = next;
        stack[sp++] = i - w;
      }
      if (i < w * (h - 1) && mask[i + w] && !label[i + w]) {
        label[i + w] = next;
        stack[sp++] = i + w;
      }
    }
    next++;
    if (pix.length < minPixels) continue;
    const xs = new Int32Array(pix.length);
    const ys = new Int32Array(pix.length);
    pix.forEach((i, k) => {
      xs[k] = i % w;
      ys[k] = (i / w) | 0;
    });
    out.push({ xs, ys, n: pix.length });
  }
  return out;
}

/** Least-squares line v = a + b·u through the points, with one pass dropping the worst tenth. */
function fitLine(us: number[], vs: number[]): { a: number; b: number } {
  const fit = (idx: number[]) => {
    let su = 0,
      sv = 0,
      suu = 0,
      suv = 0;
    for (const i of idx) {
      su += us[i];
      sv += vs[i];
      suu += us[i] * us[i];
      suv += us[i] * vs[i];
    }
    const n = idx.length;
    const d = n * suu - su * su;
    const b = d === 0 ? 0 : (n * suv - su * sv) / d;
    return { a: (sv - b * su) / n, b };
  };
  const all = us.map((_, i) => i);
  const first = fit(all);
  const res = all.map((i) => Math.abs(vs[i] - (first.a + first.b * us[i])));
  const cut = [...res].sort((x, y) => x - y)[Math.floor(res.length * 0.9)] ?? Infinity;
  const kept = all.filter((i) => res[i] <= cut);
  return kept.length >= 2 ? fit(kept) : first;
}

type Line = { b: Blob; mx: number; my: number; theta: number; len: number; thick: number; fill: number };

/** A blob's axis (second moments), length along it and thickness across it. */
function lineOf(b: Blob): Line {
  let mx = 0,
    my = 0;
  for (let k = 0; k < b.n; k++) {
    mx += b.xs[k];
    my += b.ys[k];
  }
  mx /= b.n;
  my /= b.n;
  let cxx = 0,
    cyy = 0,
    cxy = 0;
  for (let k = 0; k < b.n; k++) {
    const dx = b.xs[k] - mx;
    const dy = b.ys[k] - my;
    cxx += dx * dx;
    cyy += dy * dy;
    cxy += dx * dy;
  }
  const theta = 0.5 * Math.atan2(2 * cxy, cxx - cyy);
  const cu = Math.cos(theta);
  const su = Math.sin(theta);
  let u0 = Infinity,
    u1 = -Infinity,
    v0 = Infinity,
    v1 = -Infinity;
  for (let k = 0; k < b.n; k++) {
    const dx = b.xs[k] - mx;
    const dy = b.ys[k] - my;
    const u = dx * cu + dy * su;
    const v = -dx * su + dy * cu;
    if (u < u0) u0 = u;
    if (u > u1) u1 = u;
    if (v < v0) v0 = v;
    if (v > v1) v1 = v;
  }
  const len = u1 - u0;
  const thick = Math.max(1, v1 - v0);
  return { b, mx, my, theta, len, thick, fill: b.n / Math.max(1, len * thick) };
}

/**
 * The quadrilateral around a group of line blobs sharing an axis `theta`: its top and bottom edges fitted as lines
 * (a keystone leans them), the text's up as the image's up where the axis allows.
 */
function quadOf(lines: Line[], theta0: number): { quad: Quad; len: number; thick: number } | null {
  let theta = theta0;
  const ux = Math.cos(theta);
  const uy = Math.sin(theta);
  // An axis within 45° of vertical reads top to bottom (a quarter turn clockwise); the caller also tries the half turn.
  if (Math.abs(ux) >= Math.abs(uy) ? ux < 0 : uy < 0) theta += Math.PI;
  const cu = Math.cos(theta);
  const su = Math.sin(theta);
  let n = 0,
    mx = 0,
    my = 0;
  for (const l of lines) {
    mx += l.mx * l.b.n;
    my += l.my * l.b.n;
    n += l.b.n;
  }
  mx /= n;
  my /= n;
  const us = new Float64Array(n);
  const vs = new Float64Array(n);
  let u0 = Infinity,
    u1 = -Infinity,
    v0 = Infinity,
    v1 = -Infinity;
  let k = 0;
  for (const l of lines)
    for (let i = 0; i < l.b.n; i++, k++) {
      const dx = l.b.xs[i] - mx;
      const dy = l.b.ys[i] - my;
      const u = dx * cu + dy * su;
      const v = -dx * su + dy * cu;
      us[k] = u;
      vs[k] = v;
      if (u < u0) u0 = u;
      if (u > u1) u1 = u;
      if (v < v0) v0 = v;
      if (v > v1) v1 = v;
    }
  const len = u1 - u0;
  const thick = v1 - v0;
  const bins = Math.max(8, Math.min(64, Math.round(len / 4)));
  const top = new Array(bins).fill(Infinity);
  const bot = new Array(bins).fill(-Infinity);
  for (let j = 0; j < n; j++) {
    const i = Math.min(bins - 1, Math.floor(((us[j] - u0) / len) * bins));
    if (vs[j] < top[i]) top[i] = vs[j];
    if (vs[j] > bot[i]) bot[i] = vs[j];
  }
  const bu: number[] = [],
    tv: number[] = [],
    bv: number[] = [];
  for (let i = 1; i < bins - 1; i++) {
    if (!Number.isFinite(top[i])) continue;
    bu.push(u0 + ((i + 0.5) / bins) * len);
    tv.push(top[i]);
    bv.push(bot[i]);
  }
  if (bu.length < 4) return null;
  const tl = fitLine(bu, tv);
  const bl = fitLine(bu, bv);
  const lineThick = lines.reduce((s, l) => s + l.thick, 0) / lines.length;
  const padV = lineThick * 0.35;
  const padU = len * 0.025;
  const at = (u: number, v: number): [number, number] => [mx + u * cu - v * su, my + u * su + v * cu];
  const ua = u0 - padU;
  const ub = u1 + padU;
  return {
    quad: [
      at(ua, tl.a + tl.b * ua - padV),
      at(ub, tl.a + tl.b * ub - padV),
      at(ub, bl.a + bl.b * ub + padV),
      at(ua, bl.a + bl.b * ua + padV),
    ],
    len,
    thick,
  };
}

const angleDiff = (a: number, b: number) => {
  const d = Math.abs(a - b) % Math.PI;
  return Math.min(d, Math.PI - d);
};

/**
 * Candidate machine-readable zones in a grey image, best first, as quadrilaterals in this image's pixels with the
 * text's up as the image's up where the axis allows (the 180° alternative is the caller's to try).
 * `charKernel` is about one character's width at this size: the closing joins a line's characters, and the lines of
 * a zone (2 or 3, parallel, of about the same length, one line's height apart) are grouped here.
 */
export function findZones(g: Grey, charKernel: number): Candidate[] {
  const { width: w, height: h } = g;
  const mask = textMask(g, Math.max(7, charKernel | 1));
  const joined = close(mask, w, h, charKernel | 1, charKernel | 1);
  const lines = components(joined, w, h, Math.max(40, (w * h) / 4000))
    .map(lineOf)
    .filter((l) => l.len >= Math.max(w, h) * 0.1 && l.thick >= 3 && l.len / l.thick >= 5 && l.fill >= 0.35);
  // Group lines: parallel, similar length, centres within a few line heights across the axis and aligned along it.
  const parent = lines.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i])));
  for (let i = 0; i < lines.length; i++)
    for (let j = i + 1; j < lines.length; j++) {
      const a = lines[i];
      const b = lines[j];
      if (angleDiff(a.theta, b.theta) > 0.12) continue;
      if (Math.min(a.len, b.len) / Math.max(a.len, b.len) < 0.6) continue;
      const dx = b.mx - a.mx;
      const dy = b.my - a.my;
      const along = Math.abs(dx * Math.cos(a.theta) + dy * Math.sin(a.theta));
      const across = Math.abs(-dx * Math.sin(a.theta) + dy * Math.cos(a.theta));
      const th = Math.max(a.thick, b.thick);
      if (along > 0.15 * Math.max(a.len, b.len) || across > 3.2 * th || across < 0.8 * th) continue;
      parent[find(i)] = find(j);
    }
  const groups = new Map<number, Line[]>();
  lines.forEach((l, i) => groups.set(find(i), [...(groups.get(find(i)) ?? []), l]));
  const out: Candidate[] = [];
  for (const group of groups.values()) {
    // A zone has 2 or 3 lines; a lone line is kept as a weaker candidate (a neighbour may have merged or broken off).
    const sets = group.length <= 3 ? [group] : [group];
    for (const set of sets) {
      const ref = set.reduce((a, b) => (a.len >= b.len ? a : b));
      const q = quadOf(set, ref.theta);
      if (!q) continue;
      const fill = set.reduce((s, l) => s + l.fill, 0) / set.length;
      const elongation = ref.len / ref.thick;
      // 2 or 3 lines of one length is the zone's shape; a block of more lines is the printed fields.
      const lens = set.map((l) => l.len);
      const even = Math.min(...lens) / Math.max(...lens);
      const count = set.length === 2 || set.length === 3 ? 1.5 + even : set.length > 3 ? 0.3 : 0.6;
      const score = count * Math.min(elongation, 20) * fill * Math.sqrt(ref.len / Math.max(w, h));
      out.push({ quad: q.quad, score, elongation });
    }
  }
  return out.sort((a, b) => b.score - a.score);
}

/** The homography taking the unit square's corners (0,0) (1,0) (1,1) (0,1) to the quad's. */
function squareToQuad(q: Quad): number[] {
  const [[x0, y0], [x1, y1], [x2, y2], [x3, y3]] = q;
  const dx1 = x1 - x2,
    dx2 = x3 - x2,
    dy1 = y1 - y2,
    dy2 = y3 - y2;
  const sx = x0 - x1 + x2 - x3;
  const sy = y0 - y1 + y2 - y3;
  let g = 0,
    h = 0;
  if (sx !== 0 || sy !== 0) {
    const d = dx1 * dy2 - dx2 * dy1;
    g = (sx * dy2 - dx2 * sy) / d;
    h = (dx1 * sy - sx * dy1) / d;
  }
  return [x1 - x0 + g * x1, x3 - x0 + h * x3, x0, y1 - y0 + g * y1, y3 - y0 + h * y3, y0, g, h];
}

/** The quad of `src` warped to an outW x outH image (bilinear). */
export function warpQuad(src: Grey, quad: Quad, outW: number, outH: number): Grey {
  const [a, b, c, d, e, f, g, h] = squareToQuad(quad);
  const out = new Uint8Array(outW * outH);
  const { data, width: w, height: hh } = src;
  for (let y = 0; y < outH; y++) {
    const v = (y + 0.5) / outH;
    for (let x = 0; x < outW; x++) {
      const u = (x + 0.5) / outW;
      const den = g * u + h * v + 1;
      const sx = (a * u + b * v + c) / den - 0.5;
      const sy = (d * u + e * v + f) / den - 0.5;
      const x0 = Math.floor(sx);
      const y0 = Math.floor(sy);
      if (x0 < 0 || y0 < 0 || x0 >= w - 1 || y0 >= hh - 1) {
        out[y * outW + x] = 255;
        continue;
      }
      const fx = sx - x0;
      const fy = sy - y0;
      const i = y0 * w + x0;
      const top = data[i] * (1 - fx) + data[i + 1] * fx;
      const bottom = data[i + w] * (1 - fx) + data[i + w + 1] * fx;
      out[y * outW + x] = Math.round(top * (1 - fy) + bottom * fy);
    }
  }
  return { data: out, width: outW, height: outH };
}

/** The quad turned half way round (the text read upside down). */
export const flipQuad = (q: Quad): Quad => [q[2], q[3], q[0], q[1]];

export const scaleQuad = (q: Quad, k: number): Quad => q.map(([x, y]) => [x * k, y * k]) as Quad;

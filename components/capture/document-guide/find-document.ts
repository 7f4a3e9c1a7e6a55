/**
 * The document step's live guide, the part that needs no browser: find the document in a small copy of a camera
 * frame (a card-shaped region standing out from the background, its four corners), and say what to change. It runs
 * on the capture page four times a second (components/capture/document-guide/frame.ts draws the frames) and in
 * node for its tests and measurements (components/capture/document-guide/find-document.test.ts). The server
 * validates every upload again; these thresholds only guide the camera (docs/capture-page.md "The document step").
 */

export type Point = { x: number; y: number };
/** Top left, top right, bottom right, bottom left, in the analysed image's pixels. */
export type Quad = [Point, Point, Point, Point];

export type DocumentFound = {
  quad: Quad;
  /** the quad's area as a share of the frame (how close the document is) */
  areaShare: number;
  /** region pixels / quad area: a card is close to 1 */
  fill: number;
  /** long side / short side of the quad (an ID-1 card 1.59, a passport page 1.42) */
  aspect: number;
  /** share of the document's pixels that are saturated (glare) */
  glare: number;
  /** mean grey of the document (0-255) */
  brightness: number;
  /** a corner at the frame's edge: the document is cut off */
  touchesEdge: boolean;
};

export const DOCUMENT_ADVICE = ['noDocument', 'tooFar', 'tooClose', 'tooDark', 'glare', 'blurry', 'ready'] as const;
export type DocumentAdvice = (typeof DOCUMENT_ADVICE)[number];

/**
 * The guide's thresholds, measured on synthetic documents photographed on tables (test/helpers/document-scene.ts:
 * the passport, ID card and licence of test/helpers/images.ts, tilted, turned, moved, with glare and blur), by
 * components/capture/document-guide/find-document.test.ts, which prints the figures.
 */
export const GUIDE = {
  /** Width of the copy the document is looked for in (its height follows the frame). */
  analysisWidth: 192,
  /** Grey-level difference from the background (the frame border's median) that counts as "not the table". */
  contrast: 28,
  /** The region must fill its quad (cards 0.93-1.0) and be card-shaped (allowing 30° of perspective). */
  minFill: 0.85,
  maxFill: 1.1,
  minAspect: 1.15,
  maxAspect: 2.1,
  /** Smaller than this is no document worth outlining. */
  minOutline: 0.04,
  /** "Fill the frame": the server accepts a document from 0.25 of the frame; at 0.3 a passport page's MRZ
   *  characters are about 13 px wide in a 1280 x 720 frame. */
  minAreaShare: 0.3,
  /** A corner closer than this to the frame's edge (share of the side) is a document cut off. */
  edgeMargin: 0.01,
  /** Saturated: every channel at or above this. Glare: more than `maxGlare` of the document saturated. */
  saturated: 250,
  maxGlare: 0.01,
  /** Mean grey of the document below this: too dark to read. */
  minBrightness: 40,
  /** Laplacian variance of the document's inner 80 %, scaled to `sharpnessWidth` wide. */
  sharpnessWidth: 480,
  minSharpness: 60,
  /** Steady: no corner moved more than this share of the frame's diagonal since the last frame. */
  maxShift: 0.02,
} as const;

const cross = (o: Point, a: Point, b: Point) => (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
const dist = (a: Point, b: Point) => Math.hypot(a.x - b.x, a.y - b.y);

/** Area of a quad (shoelace). */
export function quadArea(q: Quad): number {
  let s = 0;
  for (let i = 0; i < 4; i++) {
    const a = q[i];
    const b = q[(i + 1) % 4];
    s += a.x * b.y - b.x * a.y;
  }
  return Math.abs(s) / 2;
}

/** The largest corner movement between two quads, as a share of the frame's diagonal. */
export function quadShift(a: Quad, b: Quad, w: number, h: number): number {
  return Math.max(...a.map((p, i) => dist(p, b[i]))) / Math.hypot(w, h);
}

/**
 * The document in an RGBA image (`w` x `h`, about GUIDE.analysisWidth wide), or null. The background is the median
 * grey of the image's border; the document is the largest region that differs from it, holes filled (print, the
 * photo), and its corners are the region's extreme points along the four diagonals (a document turned less than
 * 45°, tilted in perspective up to about 30°).
 */
export function findDocument(
  rgba: Uint8Array | Uint8ClampedArray,
  w: number,
  h: number,
): DocumentFound | 'cutOff' | null {
  const n = w * h;
  if (n < 64) return null;
  const raw = new Uint8Array(n);
  for (let i = 0; i < n; i++) raw[i] = (77 * rgba[4 * i] + 150 * rgba[4 * i + 1] + 29 * rgba[4 * i + 2]) >> 8;
  // A 3x3 box blur: the table's grain and JPEG noise.
  const g = new Uint8Array(n);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      let s = 0;
      let c = 0;
      for (let dy = -1; dy <= 1; dy++)
        for (let dx = -1; dx <= 1; dx++) {
          const yy = y + dy;
          const xx = x + dx;
          if (yy >= 0 && yy < h && xx >= 0 && xx < w) {
            s += raw[yy * w + xx];
            c++;
          }
        }
      g[y * w + x] = s / c;
    }
  const border: number[] = [];
  for (let x = 0; x < w; x++) border.push(g[x], g[(h - 1) * w + x]);
  for (let y = 1; y < h - 1; y++) border.push(g[y * w], g[y * w + w - 1]);
  border.sort((a, b) => a - b);
  const bg = border[border.length >> 1];
  // Not the table, grown by one pixel to close thin gaps in the card's outline.
  const mask = new Uint8Array(n);
  for (let i = 0; i < n; i++) if (Math.abs(g[i] - bg) > GUIDE.contrast) mask[i] = 1;
  const grown = new Uint8Array(n);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      if (
        mask[i] ||
        (x > 0 && mask[i - 1]) ||
        (x < w - 1 && mask[i + 1]) ||
        (y > 0 && mask[i - w]) ||
        (y < h - 1 && mask[i + w])
      )
        grown[i] = 1;
    }
  // Fill holes: what the border's table cannot reach is inside a region.
  const outside = new Uint8Array(n);
  const stack: number[] = [];
  const seed = (i: number) => {
    if (!grown[i] && !outside[i]) {
      outside[i] = 1;
      stack.push(i);
    }
  };
  for (let x = 0; x < w; x++) {
    seed(x);
    seed((h - 1) * w + x);
  }
  for (let y = 0; y < h; y++) {
    seed(y * w);
    seed(y * w + w - 1);
  }
  while (stack.length) {
    const i = stack.pop()!;
    const x = i % w;
    if (x > 0) seed(i - 1);
    if (x < w - 1) seed(i + 1);
    if (i >= w) seed(i - w);
    if (i < n - w) seed(i + w);
  }
  // Undo the growth (one pixel in from the outside), then the largest connected region.
  const solid = new Uint8Array(n);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      if (outside[i]) continue;
      const edgeOfOutside =
        (x > 0 && outside[i - 1]) ||
        (x < w - 1 && outside[i + 1]) ||
        (y > 0 && outside[i - w]) ||
        (y < h - 1 && outside[i + w]);
      if (!edgeOfOutside || mask[i]) solid[i] = 1;
    }
  const label = new Int32Array(n);
  let best = { id: 0, count: 0 };
  let next = 1;
  for (let start = 0; start < n; start++) {
    if (!solid[start] || label[start]) continue;
    let count = 0;
    label[start] = next;
    stack.push(start);
    while (stack.length) {
      const i = stack.pop()!;
      count++;
      const x = i % w;
      for (const j of [x > 0 ? i - 1 : -1, x < w - 1 ? i + 1 : -1, i - w, i + w]) {
        if (j < 0 || j >= n || label[j] || !solid[j]) continue;
        label[j] = next;
        stack.push(j);
      }
    }
    if (count > best.count) best = { id: next, count };
    next++;
  }
  if (best.count < n * GUIDE.minOutline * 0.8) return null;
  // Most of the frame, running off its edges: the document held too close (its shape cannot be checked).
  let edgePixels = 0;
  for (let x = 0; x < w; x++) edgePixels += Number(label[x] === best.id) + Number(label[(h - 1) * w + x] === best.id);
  for (let y = 0; y < h; y++) edgePixels += Number(label[y * w] === best.id) + Number(label[y * w + w - 1] === best.id);
  const cutOff = best.count > n * 0.5 && edgePixels > (w + h) * 0.2;
  // Saturated pixels (every channel clipped); glare counts those whose four neighbours are saturated too: a spot of
  // reflected light, not the odd bright pixel of print or JPEG ringing (a barcode's white measured 0.8 % without this).
  const sat = new Uint8Array(n);
  for (let i = 0; i < n; i++)
    if (rgba[4 * i] >= GUIDE.saturated && rgba[4 * i + 1] >= GUIDE.saturated && rgba[4 * i + 2] >= GUIDE.saturated)
      sat[i] = 1;
  // Corners: the extreme points along the diagonals; glare and light over the region's own pixels.
  const ext = [-Infinity, -Infinity, -Infinity, -Infinity];
  const corner: Point[] = [
    { x: 0, y: 0 },
    { x: 0, y: 0 },
    { x: 0, y: 0 },
    { x: 0, y: 0 },
  ];
  let saturated = 0;
  let sum = 0;
  for (let i = 0; i < n; i++) {
    if (label[i] !== best.id) continue;
    const x = i % w;
    const y = (i / w) | 0;
    const scores = [-x - y, x - y, x + y, -x + y];
    for (let k = 0; k < 4; k++)
      if (scores[k] > ext[k]) {
        ext[k] = scores[k];
        corner[k] = { x, y };
      }
    if (sat[i] && sat[i - 1] && sat[i + 1] && sat[i - w] && sat[i + w]) saturated++;
    sum += raw[i];
  }
  // Pixel centres to pixel edges: the outline runs around the outer pixels.
  const quad: Quad = [
    { x: corner[0].x, y: corner[0].y },
    { x: corner[1].x + 1, y: corner[1].y },
    { x: corner[2].x + 1, y: corner[2].y + 1 },
    { x: corner[3].x, y: corner[3].y + 1 },
  ];
  for (let k = 0; k < 4; k++)
    if (cross(quad[k], quad[(k + 1) % 4], quad[(k + 2) % 4]) <= 0) return cutOff ? 'cutOff' : null; // not convex
  const area = quadArea(quad);
  const fill = best.count / Math.max(1, area);
  const horizontal = (dist(quad[0], quad[1]) + dist(quad[3], quad[2])) / 2;
  const vertical = (dist(quad[0], quad[3]) + dist(quad[1], quad[2])) / 2;
  const aspect = Math.max(horizontal, vertical) / Math.max(1, Math.min(horizontal, vertical));
  if (fill < GUIDE.minFill || fill > GUIDE.maxFill || aspect < GUIDE.minAspect || aspect > GUIDE.maxAspect)
    return cutOff ? 'cutOff' : null;
  const areaShare = area / n;
  if (areaShare < GUIDE.minOutline) return null;
  const mx = Math.max(1, w * GUIDE.edgeMargin);
  const my = Math.max(1, h * GUIDE.edgeMargin);
  const touchesEdge = quad.some((p) => p.x <= mx || p.y <= my || p.x >= w - mx || p.y >= h - my);
  return { quad, areaShare, fill, aspect, glare: saturated / best.count, brightness: sum / best.count, touchesEdge };
}

/** Mean grey of an RGBA image (when no document is found: is it simply too dark?). */
export function meanGrey(rgba: Uint8Array | Uint8ClampedArray): number {
  let s = 0;
  const n = rgba.length / 4;
  for (let i = 0; i < n; i++) s += (77 * rgba[4 * i] + 150 * rgba[4 * i + 1] + 29 * rgba[4 * i + 2]) >> 8;
  return s / Math.max(1, n);
}

/** What the person should change, in the order it matters; `sharpness` is measured only once the rest is right. */
export function adviseDocument(
  found: DocumentFound | 'cutOff' | null,
  frameBrightness: number,
  sharpness: number | null,
): DocumentAdvice {
  if (found === 'cutOff') return 'tooClose';
  if (!found) return frameBrightness < GUIDE.minBrightness ? 'tooDark' : 'noDocument';
  if (found.touchesEdge) return 'tooClose';
  if (found.areaShare < GUIDE.minAreaShare) return 'tooFar';
  if (found.brightness < GUIDE.minBrightness) return 'tooDark';
  if (found.glare > GUIDE.maxGlare) return 'glare';
  if (sharpness === null || sharpness < GUIDE.minSharpness) return 'blurry';
  return 'ready';
}

/** The document's bounding box in the analysed image, moved in by `inset` of its size on each side. */
export function innerBox(q: Quad, inset = 0.1) {
  const xs = q.map((p) => p.x);
  const ys = q.map((p) => p.y);
  const x0 = Math.min(...xs);
  const y0 = Math.min(...ys);
  const bw = Math.max(...xs) - x0;
  const bh = Math.max(...ys) - y0;
  return { x: x0 + bw * inset, y: y0 + bh * inset, w: bw * (1 - 2 * inset), h: bh * (1 - 2 * inset) };
}

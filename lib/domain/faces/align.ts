/**
 * Face alignment by landmarks: a similarity transform (rotation, uniform scale, translation; Umeyama's least
 * squares) from five mesh points onto a template, and a bilinear warp of the face into a square crop. The crop
 * is what the embedding and age networks see, so two photos of one person present the face the same way.
 */

export type Point = [number, number];
export type Rgb = { data: Uint8Array; width: number; height: number };
type Similarity = { c: number; s: number; tx: number; ty: number };

/** dst ≈ [c −s; s c]·src + t, least squares over the point pairs. */
export function similarityTransform(src: readonly Point[], dst: readonly Point[]): Similarity {
  const n = src.length;
  let msx = 0;
  let msy = 0;
  let mdx = 0;
  let mdy = 0;
  for (let i = 0; i < n; i++) {
    msx += src[i][0] / n;
    msy += src[i][1] / n;
    mdx += dst[i][0] / n;
    mdy += dst[i][1] / n;
  }
  let a = 0;
  let b = 0;
  let ss = 0;
  for (let i = 0; i < n; i++) {
    const sx = src[i][0] - msx;
    const sy = src[i][1] - msy;
    const dx = dst[i][0] - mdx;
    const dy = dst[i][1] - mdy;
    a += sx * dx + sy * dy;
    b += sx * dy - sy * dx;
    ss += sx * sx + sy * sy;
  }
  const c = a / ss;
  const s = b / ss;
  return { c, s, tx: mdx - (c * msx - s * msy), ty: mdy - (s * msx + c * msy) };
}

/** The crop (size x size, RGB floats 0..255, row-major HWC) that maps `src` points onto `dst`. Edges are clamped. */
export function warpSimilarity(rgb: Rgb, src: readonly Point[], dst: readonly Point[], size: number): Float32Array {
  const m = similarityTransform(src, dst);
  const det = m.c * m.c + m.s * m.s;
  const out = new Float32Array(size * size * 3);
  const { data, width, height } = rgb;
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const u = x - m.tx;
      const v = y - m.ty;
      const sx = (m.c * u + m.s * v) / det;
      const sy = (-m.s * u + m.c * v) / det;
      const x0 = Math.floor(sx);
      const y0 = Math.floor(sy);
      const fx = sx - x0;
      const fy = sy - y0;
      const xa = Math.min(width - 1, Math.max(0, x0));
      const xb = Math.min(width - 1, Math.max(0, x0 + 1));
      const ya = Math.min(height - 1, Math.max(0, y0));
      const yb = Math.min(height - 1, Math.max(0, y0 + 1));
      const o = (y * size + x) * 3;
      for (let k = 0; k < 3; k++) {
        const p00 = data[(ya * width + xa) * 3 + k];
        const p01 = data[(ya * width + xb) * 3 + k];
        const p10 = data[(yb * width + xa) * 3 + k];
        const p11 = data[(yb * width + xb) * 3 + k];
        out[o + k] = (1 - fy) * ((1 - fx) * p00 + fx * p01) + fy * ((1 - fx) * p10 + fx * p11);
      }
    }
  }
  return out;
}

/**
 * dlib's five-point face template (get_face_chip_details in dlib's interpolation.h): the outer and inner corners
 * of each eye and the base of the nose on the unit square. dlib's face recognition network was trained on
 * 150x150 chips of it with padding 0.25; face-api's recognition net is that network.
 */
const DLIB_TEMPLATE: readonly Point[] = [
  [0.8595674595992, 0.2134981538014],
  [0.6460604764104, 0.2289674387677],
  [0.1205750620789, 0.2137274526848],
  [0.3340850613712, 0.2290642403242],
  [0.4901123135679, 0.6277975316475],
];
/** The same five points in MediaPipe's 468-point face mesh (what Human returns): left eye outer, inner; right eye outer, inner; nose base. */
const MESH_FOR_DLIB = [263, 398, 33, 173, 2] as const;

export function dlibChip(rgb: Rgb, mesh: readonly (readonly number[])[], size = 150, padding = 0.25): Float32Array {
  const src = MESH_FOR_DLIB.map((i) => [mesh[i][0], mesh[i][1]] as Point);
  const dst = DLIB_TEMPLATE.map(
    ([x, y]) => [((padding + x) / (2 * padding + 1)) * size, ((padding + y) / (2 * padding + 1)) * size] as Point,
  );
  return warpSimilarity(rgb, src, dst, size);
}

/**
 * The five-point template of ArcFace-style crops (eye centres, nose tip, mouth corners on a 112 px square),
 * loosened by `zoom` < 1 around the centre: the framing face-api's age network was measured best with (0.8).
 */
const ARCFACE_TEMPLATE: readonly Point[] = [
  [38.2946, 51.6963],
  [73.5318, 51.5014],
  [56.0252, 71.7366],
  [41.5493, 92.3655],
  [70.7299, 92.2041],
].map(([x, y]) => [x / 112, y / 112] as Point);

export function fivePointCrop(rgb: Rgb, mesh: readonly (readonly number[])[], size = 112, zoom = 0.8): Float32Array {
  const avg = (ids: number[]): Point => [
    ids.reduce((s, i) => s + mesh[i][0], 0) / ids.length,
    ids.reduce((s, i) => s + mesh[i][1], 0) / ids.length,
  ];
  const eyeA = avg([33, 133, 159, 145]);
  const eyeB = avg([362, 263, 386, 374]);
  const [le, re] = eyeA[0] < eyeB[0] ? [eyeA, eyeB] : [eyeB, eyeA];
  const ma: Point = [mesh[61][0], mesh[61][1]];
  const mb: Point = [mesh[291][0], mesh[291][1]];
  const [lm, rm] = ma[0] < mb[0] ? [ma, mb] : [mb, ma];
  const src: Point[] = [le, re, [mesh[1][0], mesh[1][1]], lm, rm];
  const dst = ARCFACE_TEMPLATE.map(
    ([x, y]) => [(0.5 + (x - 0.5) * zoom) * size, (0.5 + (y - 0.5) * zoom) * size] as Point,
  );
  return warpSimilarity(rgb, src, dst, size);
}

/**
 * A presentation-attack signal of our own: screens and prints carry a fine periodic pattern (the sub-pixel
 * grid, moiré, a halftone dot screen) that a live face in front of a camera does not. We measure it as the
 * strongest isolated peak of the face region's spectrum against the median of its own frequency ring
 * (natural images fall off smoothly with frequency; a grid is a few sharp peaks). Human's antispoof and
 * liveness scores do not separate these attacks on the packaged photos (npm run calibrate), this does.
 */

/** In-place radix-2 FFT of one row/column (re, im of length n, a power of two). */
function fft(re: Float64Array, im: Float64Array) {
  const n = re.length;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      [re[i], re[j]] = [re[j], re[i]];
      [im[i], im[j]] = [im[j], im[i]];
    }
  }
  for (let len = 2; len <= n; len <<= 1) {
    const ang = (-2 * Math.PI) / len;
    const wr = Math.cos(ang);
    const wi = Math.sin(ang);
    for (let i = 0; i < n; i += len) {
      let cr = 1;
      let ci = 0;
      for (let k = 0; k < len / 2; k++) {
        const a = i + k;
        const b = a + len / 2;
        const tr = re[b] * cr - im[b] * ci;
        const ti = re[b] * ci + im[b] * cr;
        re[b] = re[a] - tr;
        im[b] = im[a] - ti;
        re[a] += tr;
        im[a] += ti;
        const ncr = cr * wr - ci * wi;
        ci = cr * wi + ci * wr;
        cr = ncr;
      }
    }
  }
}

/**
 * Peak-to-ring-median ratio of the spectrum of an n x n patch (n a power of two), over the frequencies from
 * `lowCut` of n up (the default keeps the fine patterns: a display's pixel grid, a halftone screen). JPEG's 8-pixel
 * block grid is excluded (its harmonics sit at multiples of n/8 on both axes; n/16 for colour planes, which JPEG
 * subsamples 2:1 into 16-pixel blocks: `blockPixels`).
 */
export function periodicPeakRatio(grey: ArrayLike<number>, n: number, lowCut = 0.12, blockPixels = 8): number {
  const ratios = peakRatios(grey, n, lowCut, blockPixels);
  let best = 0;
  for (const v of ratios.values()) best = Math.max(best, v);
  return Math.round(best * 10) / 10;
}

/** Each band frequency's magnitude over its ring's median, keyed by the frequency's index v * n + u. */
function peakRatios(grey: ArrayLike<number>, n: number, lowCut: number, blockPixels: number): Map<number, number> {
  const re = new Float64Array(n * n);
  const im = new Float64Array(n * n);
  let mean = 0;
  for (let i = 0; i < n * n; i++) mean += grey[i];
  mean /= n * n;
  for (let y = 0; y < n; y++) {
    const wy = 0.5 - 0.5 * Math.cos((2 * Math.PI * y) / (n - 1));
    for (let x = 0; x < n; x++) {
      const wx = 0.5 - 0.5 * Math.cos((2 * Math.PI * x) / (n - 1));
      re[y * n + x] = (grey[y * n + x] - mean) * wx * wy;
    }
  }
  const rr = new Float64Array(n);
  const ri = new Float64Array(n);
  for (let y = 0; y < n; y++) {
    rr.set(re.subarray(y * n, y * n + n));
    ri.set(im.subarray(y * n, y * n + n));
    fft(rr, ri);
    re.set(rr, y * n);
    im.set(ri, y * n);
  }
  for (let x = 0; x < n; x++) {
    for (let y = 0; y < n; y++) {
      rr[y] = re[y * n + x];
      ri[y] = im[y * n + x];
    }
    fft(rr, ri);
    for (let y = 0; y < n; y++) {
      re[y * n + x] = rr[y];
      im[y * n + x] = ri[y];
    }
  }
  const rings: number[][] = Array.from({ length: n / 2 + 1 }, () => []);
  const band: { k: number; r: number; m: number }[] = [];
  const lo = Math.max(2, Math.round(n * lowCut));
  const block = n / blockPixels;
  const nearBlock = (f: number) => Math.abs(f - Math.round(f / block) * block) <= 1;
  for (let v = 0; v < n; v++) {
    const fy = v <= n / 2 ? v : v - n;
    if (fy < 0) continue; // half plane: the spectrum of a real image is symmetric
    for (let u = 0; u < n; u++) {
      const fx = u <= n / 2 ? u : u - n;
      const r = Math.round(Math.hypot(fx, fy));
      if (r > n / 2) continue;
      const m = Math.hypot(re[v * n + u], im[v * n + u]);
      rings[r].push(m);
      if (r >= lo && !(nearBlock(fx) && nearBlock(fy))) band.push({ k: v * n + u, r, m });
    }
  }
  const median = rings.map((ms) => {
    if (ms.length === 0) return 0;
    const s = [...ms].sort((x, y) => x - y);
    return s[s.length >> 1];
  });
  const out = new Map<number, number>();
  for (const { k, r, m } of band) if (median[r] > 0) out.set(k, m / median[r]);
  return out;
}

/**
 * Moiré: a display photographed at a distance where its sub-pixel stripes are no longer resolved still leaves
 * colour bands where its R, G and B columns beat against the camera's own sampling grid. They are periodic in
 * the colour-difference planes (R−G, B−G), at lower frequencies than the grid itself, where a face's colour
 * changes only smoothly. The bands of a sub-pixel grid show in both planes at the same frequency, so the score
 * is, over the frequencies from 4 % of the patch size up, the strongest peak (against its ring's median) that
 * both planes share: the smaller of the two ratios there. A photo without colour (a grey picture) scores 0.
 * `rgb` is an n x n RGB patch.
 */
export function moireScore(rgb: Uint8Array, n: number): number {
  const rg = new Float64Array(n * n);
  const bg = new Float64Array(n * n);
  let chroma = 0;
  for (let i = 0; i < n * n; i++) {
    rg[i] = rgb[i * 3] - rgb[i * 3 + 1];
    bg[i] = rgb[i * 3 + 2] - rgb[i * 3 + 1];
    chroma += Math.abs(rg[i]) + Math.abs(bg[i]);
  }
  if (chroma / (n * n) < 4) return 0;
  const a = peakRatios(rg, n, 0.04, 16);
  const b = peakRatios(bg, n, 0.04, 16);
  let best = 0;
  for (const [k, v] of a) best = Math.max(best, Math.min(v, b.get(k) ?? 0));
  return Math.round(best * 10) / 10;
}

/**
 * Every media validation threshold, with the measurement it comes from. Measured with
 * lib/domain/media/analyze.mjs on the packaged photos (astronaut, Grace Hopper, the 26 faces of face-api's six
 * demo collages) and their derived variants (test/helpers/images.ts); rerun with `npm run calibrate:media`.
 */
export const LIMITS = {
  /** docs/api.md: media file 10 MiB. */
  maxFileBytes: 10 * 1024 * 1024,
  /** docs/api.md: image 320x240 to 8000x8000 (the shorter side ≥ 240, the longer ≥ 320). */
  minLongSide: 320,
  minShortSide: 240,
  maxSide: 8000,
} as const;

export const SELFIE = {
  /** Mean grey of the face (0-255). Real faces 43-158; the astronaut darkened to 15 %: 19.6. */
  minBrightness: 30,
  /** Too bright: more than `maxOverexposed` of the pixels clipped (≥ 250), or a mean grey over the maximum: of the
   *  skin inside the face outline (`maxSkinBrightness`) when a face is found, else of the whole image
   *  (`maxBrightness`). Genuine photos (development set, 525 faces): 3 had skin means of 204-209 with at most 8 %
   *  clipped (refused by the old face-box rule of 200); the astronaut brightened x1.3: skin 224, clipped 0.40;
   *  overexposed (x2.6): no face found, whole image 205, clipped 0.57. */
  maxBrightness: 200,
  maxSkinBrightness: 230,
  maxOverexposed: 0.3,
  /** Variance of the Laplacian of the face scaled to 256 px. Real faces 20.5-2028; blurred σ=4: 2.5,
   *  σ=8: 3.4. Of the whole image scaled to 512 px when no face is found: real ≥ 320, blurred 4.3-6.6. */
  minFaceSharpness: 8,
  minImageSharpness: 25,
  /** Human's face score. Faces in the test photos score 0.93-1.0; a spurious second detection 0.35. */
  minFaceScore: 0.6,
  /** Face height / shorter image side. Real faces 0.19-0.80; detectable down to ≈0.09. */
  minFaceSize: 0.15,
  /** Share of the face mesh's points outside the image (Human extrapolates the mesh past the frame edge). Whole faces
   *  measure 0; the astronaut's face cut through the middle by the frame: see npm run calibrate:media. */
  maxOutsideFraction: 0.05,
  /** Grey-level standard deviation of the eye and mouth regions (mesh landmarks). Real faces: eyes
   *  ≥ 17.5, mouth ≥ 19.1; a hand-coloured patch over an eye: 0; a light mask over the mouth: 11.1.
   *  Not caught: a dark mask whose edges fall inside the mouth region (texture 55). */
  minEyeTexture: 10,
  minMouthTexture: 14,
} as const;

export const DOCUMENT = {
  /** The card-shaped region standing out from the background, as a share of the frame. Synthetic
   *  documents on a table: 0.50-0.56; a selfie: 1.0 (no border to stand out from); a scene: 0.20. */
  minAreaFraction: 0.25,
  maxAreaFraction: 0.97,
  /** Region pixels / bounding box: cards 0.99; scenes 0.79-0.88. */
  minFill: 0.92,
  /** Long side / short side: ID-1 1.586, passport page 1.42 (measured 1.56, 1.40); accept 1.25-1.85. */
  minAspect: 1.25,
  maxAspect: 1.85,
  /** Laplacian variance of the card scaled to 800 px: sharp 1707-2772; blurred σ=5: 6.2. */
  minSharpness: 40,
  /** The smallest document image: the size at which an MRZ can still be read (docs/api.md "Document images"), not the
   *  selfie's 320x240. Specimen thumbnails of about 270x180 carry a legible MRZ; the check digits make trying safe. */
  minLongSide: 240,
  minShortSide: 150,
  /** A portrait must be found on an identity document's front (scores 1.0 on the test documents). */
  minPortraitScore: 0.6,
} as const;

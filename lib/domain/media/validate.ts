/**
 * Media validation: checks in the fixed order of docs/api.md, each reported with its measured value,
 * threshold and outcome; `code` is the first that fails. File checks run here (cheap, before any
 * decoding); pixel and face checks on the measurements of the analysis pool.
 */
import sharp, { type Metadata } from 'sharp';
import { DomainError, type ErrorCode } from '../../core/errors';
import { DOCUMENT, LIMITS, SELFIE } from './thresholds';
import type { Analysis, FaceMeasure } from './types';

export type Check = { value: unknown; threshold?: unknown; passed: boolean };
export type Checks = Record<string, Check>;
type MediaKind = 'selfie' | 'document';

export type ImageType = 'jpeg' | 'png' | 'webp';

/** The real type, from the magic bytes; whatever the client declared. */
export function sniffImageType(b: Uint8Array): ImageType | null {
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'jpeg';
  if (b.length >= 8 && [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a].every((v, i) => b[i] === v)) return 'png';
  if (
    b.length >= 12 &&
    String.fromCharCode(...b.subarray(0, 4)) === 'RIFF' &&
    String.fromCharCode(...b.subarray(8, 12)) === 'WEBP'
  )
    return 'webp';
  return null;
}

const fail = (code: ErrorCode, message: string, checks: Checks, failed: string[]) =>
  new DomainError(code, message, { failed_checks: failed, checks });

export const MESSAGES: Partial<Record<ErrorCode, string>> = {
  UNSUPPORTED_MEDIA_TYPE: 'The file is not a JPEG, PNG or WebP image.',
  PAYLOAD_TOO_LARGE: 'The file is larger than 10 MiB.',
  IMAGE_TOO_SMALL: 'The image is smaller than 320x240 pixels.',
  IMAGE_TOO_LARGE: 'The image is larger than 8000x8000 pixels.',
  FACE_TOO_DARK: 'The face is too dark: move somewhere brighter.',
  FACE_TOO_BRIGHT: 'The face is overexposed: avoid direct light behind or onto the camera.',
  FACE_TOO_BLURRY: 'The photo is blurry: hold the camera still and let it focus.',
  NO_FACE_DETECTED: 'No face was found: look straight at the camera.',
  MULTIPLE_FACES: 'More than one face is visible: only the person verifying should be in the photo.',
  FACE_TOO_SMALL: 'The face is too small: move closer to the camera.',
  FACE_CUT_OFF: 'Part of the face is outside the picture: keep the whole face in the frame.',
  FACE_OCCLUDED: 'Part of the face is covered: remove anything covering the eyes or mouth.',
  DOCUMENT_NOT_FOUND: 'No identity document was found: place the whole document flat in the frame.',
  DOCUMENT_TOO_BLURRY: 'The document is blurry: hold still and make sure the text is sharp.',
  DOCUMENT_UNREADABLE:
    'The code on the document could not be read. Lay the document flat, fill the frame, and tilt it away from the light so the code at the bottom has no glare.',
};

/** The most memory one decode may take: the largest 8-bit RGB image the pixel limit allows (8000x8000x3). */
export const MAX_DECODED_BYTES = LIMITS.maxSide * LIMITS.maxSide * 3;
const BYTES_PER_SAMPLE: Record<string, number> = {
  uchar: 1,
  char: 1,
  ushort: 2,
  short: 2,
  uint: 4,
  int: 4,
  float: 4,
  complex: 8,
  double: 8,
  dpcomplex: 16,
};

/** File checks, before any decoding: type by magic bytes, size, and the pixel size the header declares. */
export async function checkFile(
  bytes: Uint8Array,
  kind: MediaKind = 'selfie',
): Promise<{ type: ImageType; width: number; height: number; checks: Checks }> {
  const checks: Checks = {};
  const type = sniffImageType(bytes);
  checks.file_type = { value: type ?? 'unknown', threshold: ['jpeg', 'png', 'webp'], passed: !!type };
  if (!type) throw fail('UNSUPPORTED_MEDIA_TYPE', MESSAGES.UNSUPPORTED_MEDIA_TYPE!, checks, ['UNSUPPORTED_MEDIA_TYPE']);
  checks.file_size = {
    value: bytes.byteLength,
    threshold: LIMITS.maxFileBytes,
    passed: bytes.byteLength <= LIMITS.maxFileBytes,
  };
  if (!checks.file_size.passed)
    throw fail('PAYLOAD_TOO_LARGE', MESSAGES.PAYLOAD_TOO_LARGE!, checks, ['PAYLOAD_TOO_LARGE']);
  // Reads the header only: a small file declaring a huge image is refused without being decoded.
  let meta: Metadata;
  try {
    meta = await sharp(bytes, { limitInputPixels: false }).metadata();
  } catch {
    checks.file_type = { value: `${type} (unreadable)`, threshold: ['jpeg', 'png', 'webp'], passed: false };
    throw fail('UNSUPPORTED_MEDIA_TYPE', 'The file is damaged or not a readable image.', checks, [
      'UNSUPPORTED_MEDIA_TYPE',
    ]);
  }
  // EXIF orientations 5-8 swap width and height.
  const swap = (meta.orientation ?? 1) >= 5;
  const width = (swap ? meta.height : meta.width) ?? 0;
  const height = (swap ? meta.width : meta.height) ?? 0;
  const long = Math.max(width, height);
  const short = Math.min(width, height);
  // A document's floor is the size at which its MRZ can be read (DOCUMENT), a selfie's the face models' (LIMITS).
  const min =
    kind === 'document' ? [DOCUMENT.minLongSide, DOCUMENT.minShortSide] : [LIMITS.minLongSide, LIMITS.minShortSide];
  const threshold = { min, max: [LIMITS.maxSide, LIMITS.maxSide] };
  const tooSmall = long < min[0] || short < min[1];
  const tooLarge = long > LIMITS.maxSide;
  checks.dimensions = { value: [width, height], threshold, passed: !tooSmall && !tooLarge };
  if (tooLarge) throw fail('IMAGE_TOO_LARGE', MESSAGES.IMAGE_TOO_LARGE!, checks, ['IMAGE_TOO_LARGE']);
  if (tooSmall)
    throw fail(
      'IMAGE_TOO_SMALL',
      kind === 'document' ? `The image is smaller than ${min[0]}x${min[1]} pixels.` : MESSAGES.IMAGE_TOO_SMALL!,
      checks,
      ['IMAGE_TOO_SMALL'],
    );
  // The decode budget, from the header too: pixels × channels × bytes per sample, the memory the full decode
  // takes. An 8000x8000 16-bit PNG (a 498 KB file) would need 384 MB and seconds of one worker's time.
  const decoded = width * height * (meta.channels ?? 3) * (BYTES_PER_SAMPLE[meta.depth ?? 'uchar'] ?? 1);
  checks.decoded_size = { value: decoded, threshold: MAX_DECODED_BYTES, passed: decoded <= MAX_DECODED_BYTES };
  if (!checks.decoded_size.passed) {
    throw fail(
      'IMAGE_TOO_LARGE',
      'The image needs too much memory to decode: fewer pixels, 8 bits per channel, no alpha.',
      checks,
      ['IMAGE_TOO_LARGE'],
    );
  }
  return { type, width, height, checks };
}

const usable = (faces: FaceMeasure[]) => faces.filter((f) => f.score >= SELFIE.minFaceScore);

/** Selfie: light, sharpness, face count, face size, face in frame, occlusion; light and sharpness on the face when found. */
export function checkSelfie(a: Analysis, checks: Checks): { failed: ErrorCode[]; face: FaceMeasure | null } {
  const failed: ErrorCode[] = [];
  const faces = usable(a.faces);
  const face = faces[0] ?? null;
  const light = face ?? a.whole;
  const on = face ? 'face' : 'image';
  // On the face, light is the skin inside the mesh's outline: bright skin that keeps its detail (a high-key studio
  // portrait) is not overexposed; clipped skin is. Without a face, the whole image.
  const maxMean = face ? SELFIE.maxSkinBrightness : SELFIE.maxBrightness;
  const tooBright = light.brightness > maxMean || light.overexposed_fraction > SELFIE.maxOverexposed;
  checks.brightness = {
    value: {
      measured_on: face ? 'skin' : 'image',
      mean: light.brightness,
      overexposed_fraction: light.overexposed_fraction,
    },
    threshold: { min: SELFIE.minBrightness, max: maxMean, max_overexposed_fraction: SELFIE.maxOverexposed },
    passed: light.brightness >= SELFIE.minBrightness && !tooBright,
  };
  if (light.brightness < SELFIE.minBrightness) failed.push('FACE_TOO_DARK');
  if (tooBright) failed.push('FACE_TOO_BRIGHT');
  const minSharp = face ? SELFIE.minFaceSharpness : SELFIE.minImageSharpness;
  checks.sharpness = {
    value: { measured_on: on, laplacian_variance: light.sharpness },
    threshold: minSharp,
    passed: light.sharpness >= minSharp,
  };
  if (!checks.sharpness.passed) failed.push('FACE_TOO_BLURRY');
  checks.face_count = { value: faces.length, threshold: 1, passed: faces.length === 1 };
  if (faces.length === 0) failed.push('NO_FACE_DETECTED');
  if (faces.length > 1) failed.push('MULTIPLE_FACES');
  if (face) {
    checks.face_size = {
      value: face.size_fraction,
      threshold: SELFIE.minFaceSize,
      passed: face.size_fraction >= SELFIE.minFaceSize,
    };
    if (!checks.face_size.passed) failed.push('FACE_TOO_SMALL');
    // A face cut off by the frame edge: the mesh (which Human extrapolates past the edge) falls partly outside.
    checks.face_in_frame = {
      value: { outside_fraction: face.outside_fraction },
      threshold: { max_outside_fraction: SELFIE.maxOutsideFraction },
      passed: face.outside_fraction <= SELFIE.maxOutsideFraction,
    };
    if (!checks.face_in_frame.passed) failed.push('FACE_CUT_OFF');
    const r = face.regions;
    const eyes = Math.min(r.left_eye_texture, r.right_eye_texture);
    checks.occlusion = {
      value: { eye_texture: eyes, mouth_texture: r.mouth_texture },
      threshold: { min_eye_texture: SELFIE.minEyeTexture, min_mouth_texture: SELFIE.minMouthTexture },
      passed: eyes >= SELFIE.minEyeTexture && r.mouth_texture >= SELFIE.minMouthTexture,
    };
    if (!checks.occlusion.passed) failed.push('FACE_OCCLUDED');
  }
  return { failed, face };
}

/** Document: present (card-shaped region), sharp, and on an identity document's front a portrait. */
export function checkDocument(
  a: Analysis,
  checks: Checks,
  side: 'front' | 'back',
): { failed: ErrorCode[]; portrait: FaceMeasure | null } {
  const failed: ErrorCode[] = [];
  const d = a.document!;
  const present =
    d.area_fraction >= DOCUMENT.minAreaFraction &&
    d.area_fraction <= DOCUMENT.maxAreaFraction &&
    d.fill >= DOCUMENT.minFill &&
    d.aspect >= DOCUMENT.minAspect &&
    d.aspect <= DOCUMENT.maxAspect;
  checks.document_present = {
    value: { area_fraction: d.area_fraction, fill: d.fill, aspect: d.aspect },
    threshold: {
      area_fraction: [DOCUMENT.minAreaFraction, DOCUMENT.maxAreaFraction],
      min_fill: DOCUMENT.minFill,
      aspect: [DOCUMENT.minAspect, DOCUMENT.maxAspect],
    },
    passed: present,
  };
  if (!present) failed.push('DOCUMENT_NOT_FOUND');
  const sharpness = present ? d.sharpness : a.whole.sharpness;
  checks.document_sharpness = {
    value: sharpness,
    threshold: DOCUMENT.minSharpness,
    passed: sharpness >= DOCUMENT.minSharpness,
  };
  if (!checks.document_sharpness.passed) failed.push('DOCUMENT_TOO_BLURRY');
  let portrait: FaceMeasure | null = null;
  if (side === 'front') {
    portrait = a.faces.find((f) => f.score >= DOCUMENT.minPortraitScore) ?? null;
    checks.portrait = {
      value: portrait ? portrait.score : 0,
      threshold: DOCUMENT.minPortraitScore,
      passed: !!portrait,
    };
    if (!portrait && !failed.includes('DOCUMENT_NOT_FOUND')) failed.push('DOCUMENT_NOT_FOUND');
  }
  return { failed, portrait };
}

export function throwIfFailed(failed: ErrorCode[], checks: Checks) {
  if (failed.length === 0) return;
  const code = failed[0];
  throw fail(code, MESSAGES[code] ?? 'The image did not pass validation.', checks, failed);
}

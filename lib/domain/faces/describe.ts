/**
 * The face description used for matching (face match, duplicates, blocklist, same-capture): face-api's port of
 * dlib's ResNet on dlib's aligned 150 px chip, averaged with the descriptor of the mirrored chip, L2-normalised
 * (128 dimensions, compared by cosine). Measured on different photos of the same people (npm run evaluate,
 * docs/evaluation/): see FACE_MATCH_THRESHOLD in lib/domain/thresholds/thresholds.ts.
 */
import type { FaceApiNets } from './face-api-nets';
import { dlibChip, fivePointCrop, type Rgb } from './align';

export async function describeFace(
  nets: FaceApiNets,
  rgb: Rgb,
  mesh: readonly (readonly number[])[],
): Promise<{ embedding: number[]; faceApiAge: number }> {
  const chip = dlibChip(rgb, mesh);
  const mirrored = mirror(chip, 150);
  const [a, b] = await nets.describe([chip, mirrored]);
  const sum = Array.from(a, (v, i) => v + b[i]);
  const norm = Math.hypot(...sum) || 1;
  const faceApiAge = await nets.age(fivePointCrop(rgb, mesh));
  return { embedding: sum.map((v) => v / norm), faceApiAge };
}

function mirror(img: Float32Array, size: number): Float32Array {
  const out = new Float32Array(img.length);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const from = (y * size + (size - 1 - x)) * 3;
      const to = (y * size + x) * 3;
      out[to] = img[from];
      out[to + 1] = img[from + 1];
      out[to + 2] = img[from + 2];
    }
  }
  return out;
}

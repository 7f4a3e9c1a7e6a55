/**
 * A head turned left or right, made from a still photo: a real 3D turn is not available offline. In a turn the
 * nose, nearest the camera, moves sideways more than the eyes do; so here the face's centre line (nose, mouth) is
 * shifted sideways by a smooth displacement that fades out before the eyes and the face's outline. The pipeline
 * and the page read a turn as the nose's offset from the eyes' midpoint in eye distances (lib/domain/media/analyze.ts,
 * headTurn), which this moves by about `turn`: positive to the image's right.
 */
import sharp from 'sharp';

export type Box = { x: number; y: number; w: number; h: number };
/** The astronaut's face box in her 512x512 photo, measured by Human. */
export const ASTRONAUT_FACE: Box = { x: 152, y: 50, w: 145, h: 145 };

export async function turnedHead(image: Buffer, turn: number, face: Box = ASTRONAUT_FACE): Promise<Buffer> {
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const { width: W, height: H } = info;
  const out = Buffer.from(data);
  // The region moved: the face box widened a little, so the outline itself stays put.
  const x0 = face.x - face.w * 0.15;
  const x1 = face.x + face.w * 1.15;
  const y0 = face.y - face.h * 0.1;
  const y1 = face.y + face.h * 1.15;
  const cx = face.x + face.w / 2;
  const sigma = face.w * 0.2;
  // The outer eye corners sit about 0.45 of the box width apart.
  const amp = turn * face.w * 0.45;
  for (let y = Math.max(0, Math.floor(y0)); y < Math.min(H, Math.ceil(y1)); y++) {
    const ty = Math.sin((Math.PI * (y - y0)) / (y1 - y0)); // taper to 0 above and below the face
    for (let x = Math.max(0, Math.floor(x0)); x < Math.min(W, Math.ceil(x1)); x++) {
      const d = amp * ty * Math.exp(-(((x - cx) / sigma) ** 2)); // largest on the centre line, ~0 at the eyes' outer corners
      const sx = Math.min(W - 1, Math.max(0, x - d));
      const a = Math.floor(sx);
      const f = sx - a;
      const b = Math.min(W - 1, a + 1);
      for (let c = 0; c < 3; c++)
        out[(y * W + x) * 3 + c] = Math.round((1 - f) * data[(y * W + a) * 3 + c] + f * data[(y * W + b) * 3 + c]);
    }
  }
  return sharp(out, { raw: { width: W, height: H, channels: 3 } })
    .jpeg({ quality: 92 })
    .toBuffer();
}

/**
 * Fake-camera files for Chromium (--use-file-for-fake-video-capture): a Y4M video (YUV 4:2:0) made from a
 * real image with sharp. Chromium loops the file, so a few identical frames are a steady camera.
 */
import fs from 'node:fs';
import sharp from 'sharp';

export async function writeY4m(
  file: string,
  image: Buffer,
  opts: { width?: number; height?: number; frames?: number } = {},
) {
  const width = opts.width ?? 640;
  const height = opts.height ?? 480;
  const frame = await y4mFrame(image, width, height);
  const header = Buffer.from(`YUV4MPEG2 W${width} H${height} F15:1 Ip A1:1 C420jpeg\n`);
  fs.writeFileSync(file, Buffer.concat([header, ...Array.from({ length: opts.frames ?? 4 }, () => frame)]));
}

/** A video of several pictures, each held for `hold` frames at `fps` (Chromium loops it): e.g. a head turning. */
export async function writeY4mSequence(
  file: string,
  images: Buffer[],
  opts: { width?: number; height?: number; hold?: number; fps?: number } = {},
) {
  const width = opts.width ?? 640;
  const height = opts.height ?? 480;
  const frames = await Promise.all(images.map((i) => y4mFrame(i, width, height)));
  const header = Buffer.from(`YUV4MPEG2 W${width} H${height} F${opts.fps ?? 5}:1 Ip A1:1 C420jpeg\n`);
  fs.writeFileSync(
    file,
    Buffer.concat([header, ...frames.flatMap((f) => Array.from({ length: opts.hold ?? 6 }, () => f))]),
  );
}

async function y4mFrame(image: Buffer, width: number, height: number): Promise<Buffer> {
  const { data } = await sharp(image)
    .resize(width, height, { fit: 'cover' })
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const y = Buffer.alloc(width * height);
  const u = Buffer.alloc((width / 2) * (height / 2));
  const v = Buffer.alloc((width / 2) * (height / 2));
  for (let j = 0; j < height; j++) {
    for (let i = 0; i < width; i++) {
      const k = (j * width + i) * 3;
      const [r, g, b] = [data[k], data[k + 1], data[k + 2]];
      y[j * width + i] = Math.max(0, Math.min(255, Math.round(0.299 * r + 0.587 * g + 0.114 * b)));
      if (j % 2 === 0 && i % 2 === 0) {
        const c = (j / 2) * (width / 2) + i / 2;
        u[c] = Math.max(0, Math.min(255, Math.round(128 - 0.168736 * r - 0.331264 * g + 0.5 * b)));
        v[c] = Math.max(0, Math.min(255, Math.round(128 + 0.5 * r - 0.418688 * g - 0.081312 * b)));
      }
    }
  }
  return Buffer.concat([Buffer.from('FRAME\n'), y, u, v]);
}

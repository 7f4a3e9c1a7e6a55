import sharp from 'sharp';
import { loadHuman } from '../lib/faces/human-node.mjs';
import { analyze } from '../lib/media/analyze.mjs';
import { periodicPeakRatio } from '../lib/faces/replay.mjs';
import * as F from '../lib/testing/face-set';
import * as I from '../lib/testing/images';
const human = await loadHuman();
const faces = await F.labelledFaces(human);
async function score(img: Buffer) {
  const a = await analyze(human, { bytes: img, kind: 'selfie' });
  const f = a.faces[0];
  if (!f) return 'none';
  const [x, y, w, h] = f.box;
  const n = Math.min(w, h) >= 256 ? 256 : 128;
  const cx = Math.round(x + w / 2 - n / 2), cy = Math.round(y + h / 2 - n / 2);
  const { data } = await sharp(a.stored).extract({ left: Math.max(0, cx), top: Math.max(0, cy), width: n, height: n }).greyscale().raw().toBuffer({ resolveWithObject: true });
  return `${periodicPeakRatio(new Uint8Array(data), n)} (n=${n})`;
}
for (const f of faces) {
  console.log(f.id.padEnd(14), await score(f.image), '| screen', await score(await F.screenReplay(f.image)), '| print', await score(await F.printedHalftone(f.image)));
}
console.log('selfie1280', await score(await I.selfie1280()));
console.log('grace full', await score(I.graceHopper()));
console.log('astronaut full', await score(I.astronaut()));
process.exit(0);

import { loadHuman } from '../lib/faces/human-node.mjs';
import { analyze } from '../lib/media/analyze.mjs';
import * as F from '../lib/testing/face-set';
const human = await loadHuman();
const faces = await F.labelledFaces(human);
console.log('faces', faces.length);
for (const f of faces) {
  const a = await analyze(human, { bytes: f.image, kind: 'selfie' });
  const x = a.faces[0];
  const s = await analyze(human, { bytes: await F.screenReplay(f.image), kind: 'selfie' });
  const p = await analyze(human, { bytes: await F.printedHalftone(f.image), kind: 'selfie' });
  const fmt = (r: any) => r ? `age ${r.age} real ${r.real} live ${r.live} sc ${r.score} sharp ${r.sharpness}` : 'none';
  console.log(f.id.padEnd(14), fmt(x), '| screen', fmt(s.faces[0]), '| print', fmt(p.faces[0]));
}
process.exit(0);

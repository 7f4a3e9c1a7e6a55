/**
 * npm run make:attack-set -- <dir>: writes an evaluation folder (manifest.csv + photos) of presentation attacks made
 * from the packaged photos, for npm run evaluate: every face of astronaut, Grace Hopper and face-api's collages
 * as a genuine selfie, and as simulated attacks of four kinds (test/helpers/face-set.ts):
 *   screen   the photo on an LCD, sub-pixel stripes visible;
 *   bezel    the same inside a phone's dark bezel, on a room background;
 *   moire    the photo on a display whose sub-pixels the camera does not resolve: colour moiré only, in five
 *            screen densities, angles and focus blurs;
 *   print    a halftone print.
 * Nothing from a licensed data set: the packaged photos are public domain or ship with an npm package.
 */
import fs from 'node:fs';
import path from 'node:path';
import { AnalysisPool } from '../lib/domain/media/pool';
import * as F from '../test/helpers/face-set';
import { cliFlags } from '../lib/core/cli-flags';

const dir = cliFlags({}, { words: 1 }).words[0];
if (!dir) throw new Error('usage: npm run make:attack-set -- <dir>');
fs.mkdirSync(dir, { recursive: true });
const pool = new AnalysisPool(2);
const faces = await F.labelledFaces((b, k) => pool.analyze(b, k));
await pool.close();
const lines = ['file,person,age,kind'];
const put = (name: string, bytes: Buffer, person: string, age: number | null, kind: string) => {
  fs.writeFileSync(path.join(dir, name), bytes);
  lines.push(`${name},${person},${age ?? ''},${kind}`);
};
const MOIRE = [
  { density: 1.1, angle: 1.5 },
  { density: 0.9, angle: 2 },
  { density: 1.15, angle: 1, strength: 0.15, blur: 1.0 },
  { density: 1.2, angle: 3, strength: 0.3, blur: 1.4 },
  { density: 0.95, angle: 2.5, strength: 0.2, blur: 1.3 },
];
for (const f of faces) {
  put(`${f.id}.jpg`, f.image, f.person, f.knownAge, 'genuine');
  put(`${f.id}-screen.jpg`, await F.screenReplay(f.image), f.person, null, 'screen');
  put(`${f.id}-bezel.jpg`, await F.screenWithBezel(f.image), f.person, null, 'bezel');
  put(`${f.id}-print.jpg`, await F.printedHalftone(f.image), f.person, null, 'print');
  for (const [i, m] of MOIRE.entries())
    put(`${f.id}-moire${i}.jpg`, await F.moireReplay(f.image, m), f.person, null, 'moire');
}
fs.writeFileSync(path.join(dir, 'manifest.csv'), lines.join('\n') + '\n');
console.log(`${lines.length - 1} photos of ${faces.length} faces in ${dir}`);
process.exit(0);

import fs from 'node:fs';
import { loadHuman } from '../lib/faces/human-node.mjs';
import { analyze } from '../lib/media/analyze.mjs';
import * as I from '../lib/testing/images';
import { readMrz, stopOcr } from '../lib/documents/ocr';
import { readPdf417 } from '../lib/documents/barcode';
const human = await loadHuman();
for (const [k, s, opt] of [['passport', 'front', {}], ['id_card', 'back', {}], ['driving_licence', 'back', {}], ['passport', 'front', { mrz: 'smudged' }], ['id_card', 'back', { birthDate: '2010-03-04', surname: 'OLSEN', givenNames: 'PER' }]] as const) {
  const img = await I.renderDocument(k, s, undefined, opt as any);
  fs.writeFileSync(`/tmp/doc-${k}-${s}.jpg`, img);
  const a = await analyze(human, { bytes: img, kind: 'document' });
  if (k === 'driving_licence') { const t = Date.now(); const r = await readPdf417(a.stored); console.log(k, s, Date.now() - t, 'ms', r.length); continue; }
  const r = await readMrz(a.stored, a.document?.box ?? null);
  console.log(k, s, JSON.stringify(opt), r.ms, 'ms', r.mrz ? JSON.stringify(r.mrz.data) + ' corrected=' + r.mrz.corrected : 'NONE ' + JSON.stringify(r.text));
}
await stopOcr();
process.exit(0);

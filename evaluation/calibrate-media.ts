/**
 * npm run calibrate:media: the measurements behind lib/domain/media/thresholds.ts, over the packaged photos
 * and their derived variants. Prints one line per image: light, sharpness, faces, document region.
 */
import { loadFaceModels } from '../lib/domain/faces/models';
import { analyze } from '../lib/domain/media/analyze';
import * as I from '../test/helpers/images';

const models = await loadFaceModels();
async function show(name: string, bytes: Buffer, kind: 'selfie' | 'document' = 'selfie') {
  const t = Date.now();
  const r = await analyze(models, { bytes, kind });
  const faces = r.faces.map((x) => ({
    score: x.score,
    size: x.size_fraction,
    bright: x.brightness,
    clipped: x.overexposed_fraction,
    sharp: x.sharpness,
    outside: x.outside_fraction,
    eyes: Math.min(x.regions.left_eye_texture, x.regions.right_eye_texture),
    mouth: x.regions.mouth_texture,
    age: x.age,
  }));
  const doc = r.document
    ? { area: r.document.area_fraction, fill: r.document.fill, aspect: r.document.aspect, sharp: r.document.sharpness }
    : undefined;
  console.log(
    `${name.padEnd(22)} ${String(Date.now() - t).padStart(4)} ms ${r.width}x${r.height} whole=${JSON.stringify(r.whole)} faces=${JSON.stringify(faces)}${doc ? ' document=' + JSON.stringify(doc) : ''}`,
  );
}

const a = I.astronaut();
await show('astronaut', a);
await show('grace_hopper', I.graceHopper());
for (const n of [1, 2, 3, 4, 5, 6] as const) await show(`face-api sample${n}`, I.faceApiSample(n));
await show('selfie 1280x720', await I.selfie1280());
await show('blurred σ=4', await I.blurred(a, 4));
await show('blurred σ=8', await I.blurred(a, 8));
await show('darkened', await I.darkened(a));
await show('overexposed', await I.overexposed(a));
await show('hand over an eye', await I.handOverEye());
await show('light mask', await I.masked());
await show('dark mask', await I.masked('#222222'));
await show('eye bar', await I.covered(a, I.ASTRONAUT_EYES));
await show('no face', await I.noFace());
await show('two faces', await I.twoFaces());
await show('tiny face', await I.tinyFace());
await show('half a face (frame edge)', await I.halfFace());
await show('studio portrait', await I.studioPortrait());
for (const k of ['passport', 'id_card', 'driving_licence'] as const)
  for (const s of ['front', 'back'] as const) await show(`${k} ${s}`, await I.renderDocument(k, s), 'document');
await show('id_card front blurred', await I.blurred(await I.renderDocument('id_card', 'front'), 5), 'document');
await show('selfie as document', a, 'document');
await show('scene as document', await I.noFace(), 'document');
process.exit(0);

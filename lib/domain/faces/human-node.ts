/**
 * Human (@vladmandic/human) in Node without tfjs-node: the wasm build, loaded by file path, its .wasm
 * files from @tensorflow/tfjs-backend-wasm and its models from the package's models/ folder through a
 * tf.io load router (Node's fetch cannot read file://). One instance per worker thread (wasm uses one core).
 */
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import type { Config, Human } from '@vladmandic/human';

const require = createRequire(import.meta.url);
const humanDir = path.dirname(require.resolve('@vladmandic/human'));
const modelsDir = path.join(humanDir, '..', 'models');
const wasmDir = path.join(path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm')), '..', 'dist');

export const HUMAN_CONFIG: Partial<Config> = {
  backend: 'wasm',
  wasmPath: wasmDir + path.sep,
  modelBasePath: 'file://' + modelsDir + '/',
  debug: false,
  // Server use: never reuse a previous image's result.
  cacheSensitivity: 0,
  skipAllowed: false,
  filter: { enabled: false } as Config['filter'],
  face: {
    enabled: true,
    // return: the face crop (the rotated face Human's own models read) is returned for the age networks of
    // lib/domain/faces/age-nets.ts, which dispose it; face-api's networks (lib/domain/faces/face-api-nets.ts) get aligned crops.
    detector: { rotation: true, maxDetected: 10, minConfidence: 0.2, return: true },
    mesh: { enabled: true },
    iris: { enabled: true },
    // faceres runs in lib/domain/faces/age-nets.ts on that crop (its whole age distribution, and its mirror image); its
    // embedding is no longer the face description.
    description: { enabled: false },
    emotion: { enabled: false },
    antispoof: { enabled: true },
    liveness: { enabled: true },
  } as Config['face'],
  body: { enabled: false } as Config['body'],
  hand: { enabled: false } as Config['hand'],
  object: { enabled: false } as Config['object'],
  gesture: { enabled: false },
  segmentation: { enabled: false } as Config['segmentation'],
};

let routerRegistered = false;

type Tf = Human['tf'];
function registerFileRouter(tf: Tf) {
  if (routerRegistered) return;
  routerRegistered = true;
  tf.io.registerLoadRouter((url: string | string[]) => {
    const u = Array.isArray(url) ? url[0] : url;
    if (typeof u !== 'string' || !u.startsWith('file://')) return null;
    const file = u.slice('file://'.length);
    return {
      load: async () => {
        const json = JSON.parse(fs.readFileSync(file, 'utf8'));
        const dir = path.dirname(file);
        const manifest = json.weightsManifest as { paths: string[]; weights: unknown[] }[];
        const data = Buffer.concat(manifest.flatMap((g) => g.paths.map((p) => fs.readFileSync(path.join(dir, p)))));
        return {
          modelTopology: json.modelTopology,
          weightSpecs: manifest.flatMap((g) => g.weights),
          weightData: data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength),
          format: json.format,
          generatedBy: json.generatedBy,
          convertedBy: json.convertedBy,
          signature: json.signature,
          userDefinedMetadata: json.userDefinedMetadata,
        };
      },
    } as never;
  });
}

/** Loads Human once; throws when a model failed (human.load() itself does not). */
export async function loadHuman(): Promise<Human> {
  const { Human: HumanClass } = require(path.join(humanDir, 'human.node-wasm.js')) as {
    Human: new (c: Partial<Config>) => Human;
  };
  const human = new HumanClass(HUMAN_CONFIG);
  registerFileRouter(human.tf);
  await human.load();
  const stats = human.models.stats();
  if (stats.numLoadedModels < 5) throw new Error(`Human loaded ${stats.numLoadedModels} of 5 face models`);
  await human.warmup();
  return human;
}

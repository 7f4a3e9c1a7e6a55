import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildFaceDetector, checkModelOps, stubFor, unsupportedOps } from './build-face-detector.mjs';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ov-face-detector-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function model(ops: string[]) {
  const file = path.join(dir, `model-${ops.join('-')}.json`);
  fs.writeFileSync(file, JSON.stringify({ modelTopology: { node: ops.map((op, i) => ({ name: `n${i}`, op })) } }));
  return file;
}

/** Loads a generated stub module. */
async function load(relative: string) {
  const file = path.join(dir, relative.replace(/\W/g, '_') + '.mjs');
  fs.writeFileSync(file, stubFor(relative));
  return import(file);
}

describe('the face-detector build of Human', () => {
  it("covers every op of Human's face detector model, and refuses a model with an op it leaves out", () => {
    expect(() => checkModelOps()).not.toThrow();
    expect(unsupportedOps(model(['Placeholder', 'Conv2D', 'Softmax', 'Relu']))).toEqual(['Conv2D', 'Softmax']);
    expect(() => checkModelOps(model(['Placeholder', 'Softmax']))).toThrow(/uses ops this build leaves out: Softmax/);
  });

  it('stubs the left-out modules with their exported names: functions throw a clear error, classes construct, draw.init does nothing', async () => {
    const blazepose = await load('body/blazepose');
    expect(() => blazepose.predict()).toThrow('body/blazepose.predict: not in this face-detector build of Human');
    const webcam = await load('util/webcam');
    expect(() => new webcam.WebCam()).not.toThrow();
    const draw = await load('draw/draw');
    expect(draw.init()).toBeUndefined();
    expect(() => draw.face()).toThrow(/draw\/draw.face: not in this face-detector build/);
  });

  it('bundles only face detection: none of the other models, gradients, optimizers, every-kernel registration or threaded wasm', async () => {
    const outfile = path.join(dir, 'human-face.js');
    const { metafile } = await buildFaceDetector({ quiet: true, outfile });
    const inputs = Object.keys(Object.values(metafile.outputs)[0].inputs);
    const human = inputs.filter((f) => f.includes('@vladmandic/human/src/')).map((f) => f.split('/src/')[1]);
    expect(human).toEqual(
      expect.arrayContaining(['human.ts', 'face/blazeface.ts', 'face/facemesh.ts', 'face/face.ts', 'face/faceres.ts']),
    );
    for (const leftOut of [
      'body/',
      'hand/',
      'object/',
      'segmentation/',
      'gear/',
      'sample.ts',
      'face/iris.ts',
      'face/antispoof.ts',
      'face/facemeshcoords.ts',
    ]) {
      expect(human.filter((f) => f.startsWith(leftOut))).toEqual([]);
    }
    const tfjs = inputs.filter((f) => f.includes('@tensorflow/'));
    for (const pattern of [
      /register_all_kernels/,
      /register_all_gradients/,
      /\/optimizers\//,
      /threaded-simd/,
      /tfjs-backend-webgl/,
      /executors\/(image|string|sparse|control)_executor/,
    ]) {
      expect(tfjs.filter((f) => pattern.test(f))).toEqual([]);
    }
    // The kernels it registers are the listed ones (about two dozen of tfjs-backend-wasm's 157).
    expect(tfjs.filter((f) => /tfjs-backend-wasm\/dist\/kernels\/[A-Z]/.test(f)).length).toBeLessThan(30);
  });
});

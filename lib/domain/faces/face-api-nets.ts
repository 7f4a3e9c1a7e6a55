/**
 * Two networks of @vladmandic/face-api, run on Human's own tfjs (one tfjs per worker): its face recognition net
 * (a port of dlib's ResNet, 128-d descriptor, fed dlib's aligned 150 px chip) and its age net (TinyXception,
 * 112 px). Only the weights come from face-api's package; the forward passes below follow its sources
 * (src/faceRecognitionNet, src/xception, src/ageGenderNet) op for op, and were checked against face-api's own
 * output (identical descriptors on the same crop).
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { Tensor, Tensor2D, Tensor4D } from '@tensorflow/tfjs-core';

type Tf = typeof import('@tensorflow/tfjs-core');
type Weights = Record<string, Tensor>;

const require = createRequire(import.meta.url);
const MEAN_RGB = [122.782, 117.001, 104.298];

function modelDir(): string {
  return path.join(path.dirname(require.resolve('@vladmandic/face-api/package.json')), 'model');
}

function loadWeights(tf: Tf, name: string): Weights {
  const dir = modelDir();
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, `${name}-weights_manifest.json`), 'utf8')) as {
    paths: string[];
    weights: Parameters<Tf['io']['decodeWeights']>[1];
  }[];
  const out: Weights = {};
  for (const group of manifest) {
    const buf = Buffer.concat(group.paths.map((p) => fs.readFileSync(path.join(dir, p))));
    Object.assign(
      out,
      tf.io.decodeWeights(
        buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) as ArrayBuffer,
        group.weights,
      ),
    );
  }
  return out;
}

export type FaceApiNets = {
  /** 128-d descriptors of 150x150 dlib chips (HWC floats 0..255), run as one batch */
  describe: (chips: Float32Array[]) => Promise<Float32Array[]>;
  /** age in years of a 112x112 aligned crop, averaged with its mirror image */
  age: (crop: Float32Array) => Promise<number>;
};

export function loadFaceApiNets(tf: Tf): FaceApiNets {
  const R = loadWeights(tf, 'face_recognition_model');
  const A = loadWeights(tf, 'age_gender_model');

  const recognise = (x: Tensor4D): Tensor2D =>
    tf.tidy(() => {
      const conv = (
        t: Tensor4D,
        p: string,
        strides: number,
        relu: boolean,
        pad: 'same' | 'valid' = 'same',
      ): Tensor4D => {
        let o = tf.add(tf.conv2d(t, R[`${p}/conv/filters`] as Tensor4D, strides, pad), R[`${p}/conv/bias`]) as Tensor4D;
        o = tf.add(tf.mul(o, R[`${p}/scale/weights`]), R[`${p}/scale/biases`]) as Tensor4D;
        return relu ? tf.relu(o) : o;
      };
      const residual = (t: Tensor4D, p: string) =>
        tf.relu(tf.add(conv(conv(t, `${p}/conv1`, 1, true), `${p}/conv2`, 1, false), t)) as Tensor4D;
      const residualDown = (t: Tensor4D, p: string): Tensor4D => {
        let o = conv(conv(t, `${p}/conv1`, 2, true, 'valid'), `${p}/conv2`, 1, false);
        let pooled = tf.avgPool(t, 2, 2, 'valid') as Tensor4D;
        if (pooled.shape[1] !== o.shape[1] || pooled.shape[2] !== o.shape[2]) {
          const [b, h, w, c] = o.shape;
          o = tf.concat([o, tf.zeros([b, 1, w, c])], 1) as Tensor4D;
          o = tf.concat([o, tf.zeros([b, h + 1, 1, c])], 2) as Tensor4D;
        }
        if (pooled.shape[3] !== o.shape[3]) pooled = tf.concat([pooled, tf.zeros(pooled.shape)], 3) as Tensor4D;
        return tf.relu(tf.add(pooled, o)) as Tensor4D;
      };
      let o = tf.div(tf.sub(x, MEAN_RGB), 255) as Tensor4D;
      o = conv(o, 'conv32_down', 2, true, 'valid');
      o = tf.maxPool(o, 3, 2, 'valid');
      for (const p of ['conv32_1', 'conv32_2', 'conv32_3']) o = residual(o, p);
      o = residualDown(o, 'conv64_down');
      for (const p of ['conv64_1', 'conv64_2', 'conv64_3']) o = residual(o, p);
      o = residualDown(o, 'conv128_down');
      for (const p of ['conv128_1', 'conv128_2']) o = residual(o, p);
      o = residualDown(o, 'conv256_down');
      for (const p of ['conv256_1', 'conv256_2']) o = residual(o, p);
      o = residualDown(o, 'conv256_down_out');
      return tf.matMul(tf.mean(o, [1, 2]) as Tensor2D, R.fc as Tensor2D);
    });

  const ageNet = (x: Tensor4D): Tensor =>
    tf.tidy(() => {
      const conv = (t: Tensor4D, p: string, s: number) =>
        tf.add(tf.conv2d(t, A[`${p}/filters`] as Tensor4D, s, 'same'), A[`${p}/bias`]) as Tensor4D;
      const sep = (t: Tensor4D, p: string) =>
        tf.add(
          tf.separableConv2d(
            t,
            A[`${p}/depthwise_filter`] as Tensor4D,
            A[`${p}/pointwise_filter`] as Tensor4D,
            1,
            'same',
          ),
          A[`${p}/bias`],
        ) as Tensor4D;
      const reduction = (t: Tensor4D, p: string, activate = true) => {
        let o = activate ? tf.relu(t) : t;
        o = sep(o, `${p}/separable_conv0`);
        o = sep(tf.relu(o), `${p}/separable_conv1`);
        o = tf.maxPool(o, 3, 2, 'same');
        return tf.add(o, conv(t, `${p}/expansion_conv`, 2)) as Tensor4D;
      };
      const main = (t: Tensor4D, p: string) => {
        let o = sep(tf.relu(t), `${p}/separable_conv0`);
        o = sep(tf.relu(o), `${p}/separable_conv1`);
        o = sep(tf.relu(o), `${p}/separable_conv2`);
        return tf.add(o, t) as Tensor4D;
      };
      let o = tf.div(tf.sub(x, MEAN_RGB), 255) as Tensor4D;
      o = tf.relu(conv(o, 'entry_flow/conv_in', 2));
      o = reduction(o, 'entry_flow/reduction_block_0', false);
      o = reduction(o, 'entry_flow/reduction_block_1');
      o = main(o, 'middle_flow/main_block_0');
      o = main(o, 'middle_flow/main_block_1');
      o = reduction(o, 'exit_flow/reduction_block');
      o = tf.relu(sep(o, 'exit_flow/separable_conv'));
      const pooled = tf.reshape(tf.avgPool(o, 7, 2, 'valid'), [o.shape[0], -1]) as Tensor2D;
      return tf.add(tf.matMul(pooled, A['fc/age/weights'] as Tensor2D), A['fc/age/bias']);
    });

  return {
    describe: async (chips) => {
      const flat = new Float32Array(chips.length * 150 * 150 * 3);
      chips.forEach((c, i) => flat.set(c, i * c.length));
      const x = tf.tensor4d(flat, [chips.length, 150, 150, 3]);
      const y = recognise(x);
      const d = (await y.data()) as Float32Array;
      tf.dispose([x, y]);
      return chips.map((_, i) => d.slice(i * 128, (i + 1) * 128));
    },
    age: async (crop) => {
      // The crop and its mirror image, in one tidy: the mirrored copy is an intermediate that must not outlive it.
      const y = tf.tidy(() => {
        const x = tf.tensor4d(crop, [1, 112, 112, 3]);
        return ageNet(tf.concat([x, tf.reverse(x, 2)], 0) as Tensor4D);
      });
      const d = await y.data();
      tf.dispose(y);
      return (d[0] + d[1]) / 2;
    },
  };
}

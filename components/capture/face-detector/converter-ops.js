/**
 * The tfjs ops the converter may call to run Human's face detector graph (blazeface.json: AddV2,
 * DepthwiseConv2dNative, MaxPool, Pad, Relu, Reshape, _FusedConv2D, plus Const, Identity and Placeholder,
 * which need no op). Stands in for tfjs-core's ops_for_converter, which exports every op there is.
 * server/build-face-detector.mjs refuses to build when the model uses an op outside this list.
 */
import * as fused from '@tensorflow/tfjs-core/dist/ops/fused_ops.js';

export { add } from '@tensorflow/tfjs-core/dist/ops/add.js';
export { depthwiseConv2d } from '@tensorflow/tfjs-core/dist/ops/depthwise_conv2d.js';
export { maxPool } from '@tensorflow/tfjs-core/dist/ops/max_pool.js';
export { pad } from '@tensorflow/tfjs-core/dist/ops/pad.js';
export { relu } from '@tensorflow/tfjs-core/dist/ops/relu.js';
export { reshape } from '@tensorflow/tfjs-core/dist/ops/reshape.js';
export { scalar } from '@tensorflow/tfjs-core/dist/ops/scalar.js';
export { tensor1d } from '@tensorflow/tfjs-core/dist/ops/tensor1d.js';
export { fused };

/**
 * The wasm kernels the face detector runs, instead of all 157 (tfjs-backend-wasm's register_all_kernels).
 * The list is what the page ran in Chromium with every kernel registered and each kernel call recorded
 * (camera frames with one face, two faces and none), which matches tf.profile() of the same detection in
 * Node; plus, as insurance, the kernels of options the page turns off (Max for Human's auto-brightness,
 * Sum for its frame cache) and the variants the same ops can dispatch to (fused depthwise convolution,
 * transpose, pack, fill). A kernel missing here fails loudly ("Kernel 'X' not registered for backend
 * 'wasm'"), and the page then offers the upload instead; the Playwright camera tests run this path.
 */
import { registerKernel } from '@tensorflow/tfjs-core/dist/base.js';
import { addConfig } from '@tensorflow/tfjs-backend-wasm/dist/kernels/Add.js';
import { castConfig } from '@tensorflow/tfjs-backend-wasm/dist/kernels/Cast.js';
import { concatConfig } from '@tensorflow/tfjs-backend-wasm/dist/kernels/Concat.js';
import { cropAndResizeConfig } from '@tensorflow/tfjs-backend-wasm/dist/kernels/CropAndResize.js';
import { depthwiseConv2dNativeConfig } from '@tensorflow/tfjs-backend-wasm/dist/kernels/DepthwiseConv2dNative.js';
import { expandDimsConfig } from '@tensorflow/tfjs-backend-wasm/dist/kernels/ExpandDims.js';
import { fillConfig } from '@tensorflow/tfjs-backend-wasm/dist/kernels/Fill.js';
import { fusedConv2DConfig } from '@tensorflow/tfjs-backend-wasm/dist/kernels/FusedConv2D.js';
import { fusedDepthwiseConv2DConfig } from '@tensorflow/tfjs-backend-wasm/dist/kernels/FusedDepthwiseConv2D.js';
import { identityConfig } from '@tensorflow/tfjs-backend-wasm/dist/kernels/Identity.js';
import { maxConfig } from '@tensorflow/tfjs-backend-wasm/dist/kernels/Max.js';
import { maxPoolConfig } from '@tensorflow/tfjs-backend-wasm/dist/kernels/MaxPool.js';
import { multiplyConfig } from '@tensorflow/tfjs-backend-wasm/dist/kernels/Multiply.js';
import { packConfig } from '@tensorflow/tfjs-backend-wasm/dist/kernels/Pack.js';
import { padV2Config } from '@tensorflow/tfjs-backend-wasm/dist/kernels/PadV2.js';
import { realDivConfig } from '@tensorflow/tfjs-backend-wasm/dist/kernels/RealDiv.js';
import { reluConfig } from '@tensorflow/tfjs-backend-wasm/dist/kernels/Relu.js';
import { reshapeConfig } from '@tensorflow/tfjs-backend-wasm/dist/kernels/Reshape.js';
import { resizeBilinearConfig } from '@tensorflow/tfjs-backend-wasm/dist/kernels/ResizeBilinear.js';
import { sigmoidConfig } from '@tensorflow/tfjs-backend-wasm/dist/kernels/Sigmoid.js';
import { sliceConfig } from '@tensorflow/tfjs-backend-wasm/dist/kernels/Slice.js';
import { subConfig } from '@tensorflow/tfjs-backend-wasm/dist/kernels/Sub.js';
import { sumConfig } from '@tensorflow/tfjs-backend-wasm/dist/kernels/Sum.js';
import { transposeConfig } from '@tensorflow/tfjs-backend-wasm/dist/kernels/Transpose.js';

for (const config of [
  addConfig,
  castConfig,
  concatConfig,
  cropAndResizeConfig,
  depthwiseConv2dNativeConfig,
  expandDimsConfig,
  fillConfig,
  fusedConv2DConfig,
  fusedDepthwiseConv2DConfig,
  identityConfig,
  maxConfig,
  maxPoolConfig,
  multiplyConfig,
  packConfig,
  padV2Config,
  realDivConfig,
  reluConfig,
  reshapeConfig,
  resizeBilinearConfig,
  sigmoidConfig,
  sliceConfig,
  subConfig,
  sumConfig,
  transposeConfig,
]) {
  registerKernel(config);
}

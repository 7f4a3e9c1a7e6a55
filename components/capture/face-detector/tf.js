/**
 * The tfjs that the face-detector build of Human imports (its "dist/tfjs.esm.js"): the names its face
 * detection code uses, and nothing else, so the bundler can drop the rest of tfjs. Backend: wasm only,
 * single-threaded (the page is not cross-origin isolated, so threads are unavailable anyway; the threaded
 * glue is left out of the build).
 */
import { env, version_core } from './tf-core.js';
import { version_converter } from '@tensorflow/tfjs-converter/dist/index.js';
import { version_wasm } from '@tensorflow/tfjs-backend-wasm/dist/base.js';
import './wasm-kernels.js';

export {
  ENV,
  Tensor,
  add,
  atan2,
  backend,
  browser,
  cast,
  clone,
  concat,
  concat2d,
  dispose,
  div,
  enableProdMode,
  engine,
  env,
  expandDims,
  floorDiv,
  getBackend,
  getKernelsForBackend,
  image,
  io,
  max,
  mod,
  mul,
  pad,
  profile,
  ready,
  registerKernel,
  reshape,
  scalar,
  setBackend,
  sigmoid,
  slice,
  slice3d,
  slice4d,
  squeeze,
  sub,
  sum,
  tensor,
  tensor1d,
  tensor2d,
  tidy,
  version_core,
  zeros,
} from './tf-core.js';
export { GraphModel, loadGraphModel } from '@tensorflow/tfjs-converter/dist/index.js';
export { setWasmPaths } from '@tensorflow/tfjs-backend-wasm/dist/base.js';

export const version = {
  tfjs: version_core,
  'tfjs-core': version_core,
  'tfjs-converter': version_converter,
  'tfjs-backend-wasm': version_wasm,
};
export const node = undefined;

env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);

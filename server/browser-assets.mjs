/**
 * Prepares what the capture page runs in the browser (served from this origin, no CDN): copies Human's face
 * detector model and tfjs's wasm binaries from node_modules into public/human/, and builds the face-detector
 * build of Human (server/build-face-detector.mjs). Runs after npm install (postinstall) and before builds;
 * neither output is committed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { buildFaceDetector } from './build-face-detector.mjs';
import { buildAnalysisWorker } from './build-analysis-worker.mjs';

const root = path.resolve(import.meta.dirname, '..');
const out = path.join(root, 'public', 'human');
const copies = [
  ['node_modules/@vladmandic/human/models', 'models', ['blazeface.json', 'blazeface.bin']],
  // Single-threaded only: the threaded build needs cross-origin isolation, which the page does not have.
  [
    'node_modules/@tensorflow/tfjs-backend-wasm/dist',
    'wasm',
    ['tfjs-backend-wasm.wasm', 'tfjs-backend-wasm-simd.wasm'],
  ],
];
fs.rmSync(out, { recursive: true, force: true });
for (const [from, to, files] of copies) {
  fs.mkdirSync(path.join(out, to), { recursive: true });
  for (const f of files) fs.copyFileSync(path.join(root, from, f), path.join(out, to, f));
}
console.log(`browser assets copied to ${path.relative(root, out)}/`);
await buildFaceDetector();
// Not a browser asset, but built at the same moments: the server's image-analysis worker (TypeScript, bundled).
await buildAnalysisWorker();

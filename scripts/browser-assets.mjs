/**
 * Copies what the capture page runs in the browser from node_modules into public/human/ (served from this
 * origin, no CDN): Human's face detector model and tfjs's wasm binaries. Runs after npm install
 * (postinstall) and before builds; public/human/ is not committed.
 */
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const out = path.join(root, 'public', 'human');
const copies = [
  ['node_modules/@vladmandic/human/models', 'models', ['blazeface.json', 'blazeface.bin']],
  ['node_modules/@tensorflow/tfjs-backend-wasm/dist', 'wasm', ['tfjs-backend-wasm.wasm', 'tfjs-backend-wasm-simd.wasm', 'tfjs-backend-wasm-threaded-simd.wasm']],
];
for (const [from, to, files] of copies) {
  fs.mkdirSync(path.join(out, to), { recursive: true });
  for (const f of files) fs.copyFileSync(path.join(root, from, f), path.join(out, to, f));
}
console.log(`browser assets copied to ${path.relative(root, out)}/`);

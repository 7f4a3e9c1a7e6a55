/**
 * PDF417 through zxing-wasm, its .wasm read from node_modules (the package's default is a CDN).
 */
import fs from 'node:fs';
import { projectPath } from '../../core/project-path';
import { prepareZXingModule, readBarcodes, writeBarcode } from 'zxing-wasm/full';

let prepared = false;
function prepare() {
  if (prepared) return;
  prepared = true;
  const wasm = fs.readFileSync(projectPath('node_modules', 'zxing-wasm', 'dist', 'full', 'zxing_full.wasm'));
  prepareZXingModule({
    overrides: { wasmBinary: wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength) },
  });
}

/** The payloads (raw bytes as latin1 text) of every PDF417 symbol found in an encoded image. */
export async function readPdf417(image: Uint8Array): Promise<string[]> {
  prepare();
  const results = await readBarcodes(image, { formats: ['PDF417'], tryHarder: true, tryRotate: true });
  return results.filter((r) => r.isValid).map((r) => Buffer.from(r.bytes).toString('latin1'));
}

/** A PDF417 symbol as SVG (for synthetic test documents). */
export async function pdf417Svg(text: string): Promise<string> {
  prepare();
  const w = await writeBarcode(text, { format: 'PDF417', scale: 3 });
  if (w.error) throw new Error(`PDF417: ${w.error}`);
  return w.svg;
}

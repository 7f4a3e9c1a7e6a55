/**
 * Builds @open-verify/embed into dist/: index.js (ESM), open-verify-embed.js (one script for a <script> tag,
 * `window.OpenVerifyEmbed`), react.js (ESM, React and the core left as imports) and the type declarations.
 * `node build.mjs --size` prints each file's size, raw and gzipped.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.join(here, 'dist');

/** The three bundles; `write: false` returns their text without touching dist/ (the tests use it). */
export async function bundles({ write = true } = {}) {
  const common = { bundle: true, minify: true, target: 'es2020', legalComments: 'none', write, absWorkingDir: here };
  const [esm, iife, react] = await Promise.all([
    build({ ...common, entryPoints: ['src/index.ts'], format: 'esm', outfile: path.join(out, 'index.js') }),
    build({
      ...common,
      entryPoints: ['src/index.ts'],
      format: 'iife',
      globalName: 'OpenVerifyEmbed',
      outfile: path.join(out, 'open-verify-embed.js'),
    }),
    build({
      ...common,
      entryPoints: ['src/react.tsx'],
      format: 'esm',
      jsx: 'automatic',
      external: ['react', 'react/jsx-runtime', './index.js'],
      outfile: path.join(out, 'react.js'),
    }),
  ]);
  const text = (r) => (write ? null : r.outputFiles[0].text);
  return { esm: text(esm), iife: text(iife), react: text(react) };
}

export const gzipSize = (s) => zlib.gzipSync(Buffer.from(s), { level: 9 }).length;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  fs.rmSync(out, { recursive: true, force: true });
  await bundles();
  // Declarations: tsc from this package, or the repository's.
  const tsc = [path.join(here, 'node_modules/.bin/tsc'), path.join(here, '../../node_modules/.bin/tsc')].find((p) =>
    fs.existsSync(p),
  );
  execFileSync(tsc, ['-p', 'tsconfig.json'], { cwd: here, stdio: 'inherit' });
  // react.js imports the core as ./index.js (dist/index.js): one copy of it in an application.
  if (process.argv.includes('--size')) {
    for (const f of ['index.js', 'open-verify-embed.js', 'react.js']) {
      const s = fs.readFileSync(path.join(out, f), 'utf8');
      console.log(`${f}: ${Buffer.byteLength(s)} bytes, ${gzipSize(s)} gzipped`);
    }
  }
}

/**
 * Builds the face detector the capture page runs in the browser: @vladmandic/human compiled from its own
 * sources (shipped in the npm package) with only what face *detection* needs, on a tfjs cut down to the
 * wasm backend, the kernels and the ops that detection uses. The published browser build carries every
 * model Human has (body, hands, objects, segmentation, face description, ...): 242 KB gzip even with tfjs
 * cut to the wasm backend. This one, tfjs included, is 97 KB as the page sends it (npm run bench:capture).
 *
 *   - Human's modules for the models the page never enables are replaced by generated stubs that keep
 *     their exported names; calling one throws "not in this face-detector build of Human".
 *   - tfjs: components/capture/face-detector/ (tf.js, tf-core.js, converter-ops.js, wasm-kernels.js), the
 *     same technique as tfjs's own "size-optimized bundles" (custom ops_for_converter and kernel list),
 *     plus the converter's executors and op lists limited to the categories the model's ops belong to.
 *   - Refuses to build when the model uses an op that is not covered, so a Human upgrade cannot silently
 *     ship a detector that fails in the browser.
 *
 * Output: components/capture/face-detector/human-face.generated.js (not committed; written on npm install
 * and before every build, by server/browser-assets.mjs).
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import * as esbuild from 'esbuild';

const root = path.resolve(import.meta.dirname, '..');
const require = createRequire(path.join(root, 'package.json'));
// The package's exports map hides package.json and src/: find its folder from its main entry.
const humanRoot = path.resolve(path.dirname(require.resolve('@vladmandic/human')), '..');
const humanSrc = path.join(humanRoot, 'src') + path.sep;
const humanVersion = JSON.parse(fs.readFileSync(path.join(humanRoot, 'package.json'), 'utf8')).version;
const here = path.join(root, 'components', 'capture', 'face-detector');
export const OUTPUT = path.join(here, 'human-face.generated.js');

/** Human's modules that only serve models or features the page leaves disabled. */
const LEFT_OUT = [
  'body/',
  'hand/',
  'object/',
  'segmentation/',
  'gear/',
  'gesture/gesture',
  'draw/',
  'sample',
  'warmup-samples',
  'face/emotion',
  'face/mask',
  'face/antispoof',
  'face/liveness',
  'face/mobilefacenet',
  'face/insightface',
  'face/iris',
  'util/interpolate',
  'image/imagefx',
  'image/enhance',
  'tfjs/humangl',
  'util/webcam',
];

/** Functions of left-out modules that Human calls whatever the configuration: stubbed as no-ops. */
const CALLED_ANYWAY = { 'draw/draw': ['init'] };

/**
 * Human modules the detector path reads a little of: keep those names, and give the rest (the 468-point
 * mesh's triangles and UV map, which only the disabled mesh model uses) as empty arrays.
 */
const PARTLY = { 'face/facemeshcoords': ['blazeFaceLandmarks', 'meshLandmarks', 'meshAnnotations'] };

/** The graph ops the build supports, and the converter categories they belong to. */
const MODEL = 'blazeface.json';
const SUPPORTED_OPS = [
  'AddV2',
  'Const',
  'DepthwiseConv2dNative',
  'Identity',
  'MaxPool',
  'Pad',
  'Placeholder',
  'Relu',
  'Reshape',
  '_FusedConv2D',
];
const CATEGORIES = ['arithmetic', 'basic_math', 'convolution', 'graph', 'transformation'];

/** The ops of a tfjs graph model (model.json) that this build cannot run. */
export function unsupportedOps(modelFile) {
  const model = JSON.parse(fs.readFileSync(modelFile, 'utf8'));
  const ops = new Set(model.modelTopology.node.map((/** @type {{ op: string }} */ n) => n.op));
  return [...ops].filter((op) => !SUPPORTED_OPS.includes(op));
}

export function checkModelOps(modelFile = path.join(humanRoot, 'models', MODEL)) {
  const missing = unsupportedOps(modelFile);
  if (missing.length) {
    throw new Error(
      `${path.basename(modelFile)} uses ops this build leaves out: ${missing.join(', ')}. Add them to components/capture/face-detector/converter-ops.js, wasm-kernels.js and SUPPORTED_OPS.`,
    );
  }
}

/** The names a module of Human's exports (declarations and export lists), and which of them are classes. */
function exportedNames(relative) {
  const file = path.join(humanSrc, relative + '.ts');
  const src = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const names = new Set();
  const classes = new Set();
  for (const m of src.matchAll(/^export\s+(?:async\s+)?(function\*?|class|const|let|var)\s+(\w+)/gm)) {
    names.add(m[2]);
    if (m[1] === 'class') classes.add(m[2]);
  }
  for (const m of src.matchAll(/^export\s*\{([^}]*)\}/gm)) {
    for (const part of m[1].split(',')) {
      const name = part
        .trim()
        .split(/\s+as\s+/)
        .pop();
      if (name) names.add(name);
    }
  }
  return { names, classes, hasDefault: /^export\s+default/m.test(src) };
}

/**
 * A module with the same exported names as Human's: classes construct to an empty object (Human creates
 * some in its constructor, e.g. WebCam), the CALLED_ANYWAY functions do nothing, everything else is a
 * function that throws when called.
 */
export function stubFor(relative) {
  const { names, classes, hasDefault } = exportedNames(relative);
  const lines = [...names].map((n) =>
    classes.has(n)
      ? `export class ${n} {}`
      : CALLED_ANYWAY[relative]?.includes(n)
        ? `export function ${n}() {}`
        : `export function ${n}() { throw new Error('${relative}.${n}: not in this face-detector build of Human'); }`,
  );
  if (hasDefault) lines.push('export default undefined;');
  return lines.join('\n') || 'export {};';
}

/** @type {import('esbuild').Plugin} */
const faceOnly = {
  name: 'face-only',
  setup(build) {
    const tfjs = (f) => ({ path: path.join(here, f) });
    build.onResolve({ filter: /^dist\/tfjs\.esm\.js$/ }, () => tfjs('tf.js'));
    build.onResolve({ filter: /^@tensorflow\/tfjs-core(\/dist\/index(\.js)?)?$/ }, () => tfjs('tf-core.js'));
    build.onResolve({ filter: /\/ops\/ops_for_converter(\.js)?$/ }, () => tfjs('converter-ops.js'));
    build.onResolve({ filter: /tfjs-backend-wasm-threaded-simd(\.worker)?\.js$/ }, () => ({
      path: 'threaded',
      namespace: 'left-out',
    }));
    build.onResolve({ filter: /\/(executors\/\w+_executor|op_list\/\w+)(\.js)?$/ }, (a) => {
      const m = a.path.match(/\/(?:executors\/(\w+)_executor|op_list\/(\w+))(?:\.js)?$/);
      const category = m?.[1] ?? m?.[2];
      if (!category || CATEGORIES.includes(category)) return undefined;
      return { path: (m[1] ? 'executor:' : 'op_list:') + category, namespace: 'left-out' };
    });
    build.onResolve({ filter: /^\.\.?\// }, (a) => {
      if (!a.importer.startsWith(humanSrc)) return undefined;
      const relative = path
        .relative(humanSrc, path.resolve(path.dirname(a.importer), a.path))
        .split(path.sep)
        .join('/');
      if (relative === '../package.json') return { path: 'package.json', namespace: 'left-out' };
      if (relative in PARTLY) return { path: relative, namespace: 'human-partial' };
      if (LEFT_OUT.some((p) => relative === p || (p.endsWith('/') && relative.startsWith(p))))
        return { path: relative, namespace: 'human-stub' };
      return undefined;
    });
    build.onLoad({ filter: /.*/, namespace: 'human-partial' }, (a) => {
      // Copy the kept declarations' source (the module's other top-level code maps over the big arrays).
      const keep = PARTLY[a.path];
      const src = fs.readFileSync(path.join(humanSrc, a.path + '.ts'), 'utf8');
      const declarations = src.split(/^(?=export )/m);
      const declares = (d, n) => new RegExp(`^export const ${n}\\b`).test(d);
      for (const n of keep)
        if (!declarations.some((d) => declares(d, n)))
          throw new Error(`${a.path}: no "export const ${n}" to keep (Human changed?)`);
      const kept = declarations.filter((d) => keep.some((n) => declares(d, n))); // in source order: they refer to each other
      const rest = [...exportedNames(a.path).names]
        .filter((n) => !keep.includes(n))
        .map((n) => `export const ${n} = [];`);
      return { contents: [...kept, ...rest].join('\n'), loader: 'ts' };
    });
    build.onLoad({ filter: /.*/, namespace: 'human-stub' }, (a) => ({ contents: stubFor(a.path), loader: 'js' }));
    build.onLoad({ filter: /.*/, namespace: 'left-out' }, (a) => {
      if (a.path === 'package.json') {
        return { contents: `export const version = ${JSON.stringify(humanVersion)};`, loader: 'js' };
      }
      if (a.path === 'threaded') {
        return {
          contents:
            "export default function threadedWasm() { throw new Error('threaded wasm: not in this build'); }\nexport const wasmWorkerContents = '';",
          loader: 'js',
        };
      }
      if (a.path.startsWith('op_list:')) return { contents: 'export const json = [];', loader: 'js' };
      return {
        contents: `export function executeOp(node) { throw new TypeError('Op ' + node.op + ' (${a.path.slice('executor:'.length)}) is not in this face-detector build'); }`,
        loader: 'js',
      };
    });
  },
};

/** Builds to `outfile` (default: the file the page imports); returns its size and esbuild's metafile. */
export async function buildFaceDetector({ quiet = false, outfile = OUTPUT } = {}) {
  checkModelOps();
  const result = await esbuild.build({
    entryPoints: [path.join(humanSrc, 'human.ts')],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2020',
    minify: true,
    legalComments: 'eof',
    metafile: true,
    absWorkingDir: root,
    nodePaths: [path.join(root, 'node_modules')],
    define: { 'process.env.NODE_ENV': '"production"' },
    // Node-only branches of tfjs and Human (never taken in a browser).
    external: ['fs', 'path', 'os', 'util', 'crypto', 'worker_threads', 'perf_hooks', 'string_decoder'],
    plugins: [faceOnly],
    logLevel: 'error',
    banner: {
      js: `// Generated by server/build-face-detector.mjs from @vladmandic/human ${humanVersion} (MIT) and tfjs (Apache-2.0). Do not edit.`,
    },
  });
  const bytes = fs.statSync(outfile).size;
  if (!quiet)
    console.log(`face detector built: ${path.relative(root, outfile)} (${(bytes / 1024).toFixed(0)} KB minified)`);
  return { bytes, metafile: result.metafile };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  buildFaceDetector().catch((e) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  });
}

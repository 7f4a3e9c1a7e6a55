/**
 * Fixes in installed dependencies, applied by `npm install` (postinstall) until their own releases carry them.
 * Each fix names the exact text it replaces: a release that changed that text is left alone (and the test that
 * checks the fix, server/patch-dependencies.test.ts, then fails, so the fix is looked at again).
 *
 * postgres.js (3.4.x), src/queue.js, in its three builds: the pool keeps its connections in queues whose array
 * `shift()` leaves a hole at the front of, reclaimed only when the queue is empty, and `remove()` scans from the
 * first hole. Under steady load the queue of busy connections is never empty: each query scanned one slot more than
 * the one before, 8 % of the server's CPU after 30 s of load and still growing (docs/performance.md "API
 * throughput"). Fixed: `remove()` scans the live part only, and the holes are dropped once they are most of the array.
 */
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');

export const QUEUE_BEFORE = `    remove: (x) => {
      const index = xs.indexOf(x)
      return index === -1
        ? null
        : (xs.splice(index, 1), x)
    },
    push: (x) => (xs.push(x), x),
    shift: () => {
      const out = xs[index++]

      if (index === xs.length) {
        index = 0
        xs = []
      } else {
        xs[index - 1] = undefined
      }

      return out
    }`;

/** The marker the fixed text carries (the test looks for it). */
export const QUEUE_FIXED_MARK = '/* open-verify: live part only */';

export const QUEUE_AFTER = `    remove: (x) => {
      ${QUEUE_FIXED_MARK}
      const i = xs.indexOf(x, index)
      if (i === -1)
        return null
      xs.splice(i, 1)
      if (index === xs.length) {
        index = 0
        xs = []
      }
      return x
    },
    push: (x) => (xs.push(x), x),
    shift: () => {
      const out = xs[index++]

      if (index === xs.length) {
        index = 0
        xs = []
      } else if (index >= 1024 && index * 2 >= xs.length) {
        xs = xs.slice(index)
        index = 0
      } else {
        xs[index - 1] = undefined
      }

      return out
    }`;

export const POSTGRES_QUEUE_FILES = ['src/queue.js', 'cjs/src/queue.js', 'cf/src/queue.js'].map((f) =>
  path.join('node_modules/postgres', f),
);

/** Applies the fixes under `dir` (the project's root by default); returns what happened to each file. */
export function patchDependencies(dir = root) {
  return POSTGRES_QUEUE_FILES.map((rel) => {
    const file = path.join(dir, rel);
    if (!fs.existsSync(file)) return { file: rel, result: 'missing' };
    const text = fs.readFileSync(file, 'utf8');
    if (text.includes(QUEUE_FIXED_MARK)) return { file: rel, result: 'already fixed' };
    if (!text.includes(QUEUE_BEFORE)) return { file: rel, result: 'changed upstream: left alone' };
    fs.writeFileSync(file, text.replace(QUEUE_BEFORE, QUEUE_AFTER));
    return { file: rel, result: 'fixed' };
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const { file, result } of patchDependencies())
    if (result !== 'already fixed') console.log(`patch-dependencies: ${file}: ${result}`);
}

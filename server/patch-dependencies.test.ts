import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  POSTGRES_QUEUE_FILES,
  QUEUE_AFTER,
  QUEUE_BEFORE,
  QUEUE_FIXED_MARK,
  patchDependencies,
} from './patch-dependencies.mjs';

const root = path.resolve(import.meta.dirname, '..');

type Queue<T> = { readonly length: number; remove: (x: T) => T | null; push: (x: T) => T; shift: () => T | undefined };
type QueueModule = { default: <T>(initial?: T[]) => Queue<T> };

describe('fixes in installed dependencies (server/patch-dependencies.mjs, run by npm install)', () => {
  it("postgres.js's pool queue is the fixed one, in each of its builds", () => {
    for (const f of POSTGRES_QUEUE_FILES)
      expect(fs.readFileSync(path.join(root, f), 'utf8')).toContain(QUEUE_FIXED_MARK);
    expect(patchDependencies(root).map((r) => r.result)).toEqual(['already fixed', 'already fixed', 'already fixed']);
  });

  it('the fixed queue answers exactly as the original for any sequence of push, shift and remove', async () => {
    // The original from the installed text (fixed or not), and the fix applied to it.
    const original = fs
      .readFileSync(path.join(root, 'node_modules/postgres/src/queue.js'), 'utf8')
      .replace(QUEUE_AFTER, QUEUE_BEFORE);
    expect(original).toContain(QUEUE_BEFORE);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ov-queue-'));
    fs.writeFileSync(path.join(dir, 'before.mjs'), original);
    fs.writeFileSync(path.join(dir, 'after.mjs'), original.replace(QUEUE_BEFORE, QUEUE_AFTER));
    const [before, after] = await Promise.all(
      ['before', 'after'].map(
        async (n) => ((await import(pathToFileURL(path.join(dir, `${n}.mjs`)).href)) as QueueModule).default,
      ),
    );
    fs.rmSync(dir, { recursive: true, force: true });
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    // Long enough runs without the queue emptying for the holes to be dropped (1,024 and more) many times over.
    for (let round = 0; round < 20; round++) {
      const a = before<number>();
      const b = after<number>();
      const live: number[] = [];
      let next = 0;
      for (let i = 0; i < 5000; i++) {
        const r = rnd();
        const keep = round % 2 === 0 ? 3 : 0; // half the rounds never let the queue run dry
        if (r < 0.45 || live.length <= keep) {
          live.push(next);
          expect(b.push(next)).toBe(a.push(next));
          next++;
        } else if (r < 0.8) {
          live.shift();
          expect(b.shift()).toBe(a.shift());
        } else {
          const x = rnd() < 0.8 && live.length ? live[Math.floor(rnd() * live.length)] : next + 1000; // sometimes absent
          const i2 = live.indexOf(x);
          if (i2 >= 0) live.splice(i2, 1);
          expect(b.remove(x)).toBe(a.remove(x));
        }
        expect(b.length).toBe(a.length);
      }
      while (a.length) expect(b.shift()).toBe(a.shift());
      expect(b.length).toBe(0);
    }
  });
});

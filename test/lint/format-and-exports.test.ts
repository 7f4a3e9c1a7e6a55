/**
 * The two checks `npm run lint` adds to ESLint (`knip`, then `prettier --check .`), each shown failing on a deliberate
 * violation and passing once it is mended: Prettier with the project's settings (.prettierrc.json, .prettierignore),
 * and knip with the project's knip.json, which fails on an export nothing imports (docs/development.md "Formatting
 * and unused code").
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import * as prettier from 'prettier';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');

describe('the formatter', () => {
  it("refuses code not in the project's format, and accepts it formatted", async () => {
    const file = path.join(root, 'lib/core/example.ts');
    const options = { ...(await prettier.resolveConfig(file)), filepath: file };
    const drifted = 'export const x = { a: 1, b: "two" }\nexport function f( a:number ){ return a+1 }\n';
    expect(await prettier.check(drifted, options)).toBe(false);
    const formatted = await prettier.format(drifted, options);
    expect(formatted).toBe(
      "export const x = { a: 1, b: 'two' };\nexport function f(a: number) {\n  return a + 1;\n}\n",
    );
    expect(await prettier.check(formatted, options)).toBe(true);
  });

  it('ignores the docs and the migrations, and formats the code', async () => {
    const ignored = async (rel: string) =>
      (await prettier.getFileInfo(path.join(root, rel), { ignorePath: path.join(root, '.prettierignore') })).ignored;
    expect(await ignored('docs/api.md')).toBe(true);
    expect(await ignored('lib/db/migrations/0000_init.sql')).toBe(true);
    expect(await ignored('lib/api/route.ts')).toBe(false);
    expect(await ignored('components/admin/Shell.tsx')).toBe(false);
  });
});

describe('the unused-export check', () => {
  it("fails on an export nothing imports, with the project's knip.json, and passes once it is gone", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'knip-'));
    try {
      fs.copyFileSync(path.join(root, 'knip.json'), path.join(dir, 'knip.json'));
      fs.writeFileSync(
        path.join(dir, 'package.json'),
        JSON.stringify({ name: 'fixture', private: true, type: 'module' }),
      );
      fs.writeFileSync(
        path.join(dir, 'tsconfig.json'),
        JSON.stringify({ compilerOptions: { module: 'esnext', moduleResolution: 'bundler', strict: true } }),
      );
      fs.mkdirSync(path.join(dir, 'lib/core'), { recursive: true });
      fs.mkdirSync(path.join(dir, 'server'));
      fs.writeFileSync(
        path.join(dir, 'server/main.ts'),
        "import { used } from '../lib/core/values';\nconsole.log(used);\n",
      );
      const knip = () =>
        run(path.join(root, 'node_modules/.bin/knip'), ['--no-progress', '--no-config-hints'], { cwd: dir }).then(
          () => ({ code: 0, out: '' }),
          (e: { code: number; stdout: string }) => ({ code: e.code, out: e.stdout }),
        );

      // `dead` is exported and imported by nothing: a violation.
      fs.writeFileSync(path.join(dir, 'lib/core/values.ts'), 'export const used = 1;\nexport const dead = 2;\n');
      const failed = await knip();
      expect(failed.code).toBe(1);
      expect(failed.out).toMatch(/Unused exports \(1\)\s+dead\s+lib\/core\/values\.ts/);

      fs.writeFileSync(path.join(dir, 'lib/core/values.ts'), 'export const used = 1;\n');
      expect((await knip()).code).toBe(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

/**
 * The TypeScript SDK as an app gets it (issue 43): `npm pack` of sdk/, the tarball installed into a folder outside
 * the repository, imported by a script as sdk/README.md shows, and its types checked by TypeScript from there.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '..');
const sdk = path.join(root, 'sdk');

describe('the SDK package', () => {
  it(
    'npm pack gives a tarball that an app outside the repository installs, imports and type-checks',
    { timeout: 300_000 },
    async () => {
      const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ov-sdk-pack-'));
      expect(path.relative(root, tmp).startsWith('..')).toBe(true);
      try {
        // prepack builds dist/ from src/ (TypeScript from the repository's node_modules, found by npm on the way up).
        const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', tmp], { cwd: sdk });
        const [packed] = JSON.parse(stdout.slice(stdout.indexOf('[')));
        const files = packed.files.map((f: { path: string }) => f.path).sort();
        expect(packed.name).toBe('@open-verify/sdk');
        expect(files).toEqual(
          [
            'README.md',
            ...['client', 'errors', 'index', 'signing', 'types', 'webhooks'].flatMap((m) => [
              `dist/${m}.d.ts`,
              `dist/${m}.js`,
            ]),
            'package.json',
          ].sort(),
        );

        const app = path.join(tmp, 'app');
        fs.mkdirSync(app);
        fs.writeFileSync(
          path.join(app, 'package.json'),
          JSON.stringify({ name: 'app', private: true, type: 'module' }),
        );
        // No runtime dependencies: the install needs nothing from the registry.
        await run('npm', ['install', '--offline', '--no-audit', '--no-fund', path.join(tmp, packed.filename)], {
          cwd: app,
        });

        const script = `
import crypto from 'node:crypto';
import { OpenVerify, verifyWebhook, isApiError, canonicalJson } from '@open-verify/sdk';
const ov = new OpenVerify({ baseUrl: 'http://localhost:3000', apiKey: 'pk_x', secretKey: 'sk_test_${'a'.repeat(56)}' });
const body = '{"verification_id":"v","status":"approved"}';
const ts = Math.floor(Date.now() / 1000);
const secret = 'sk_live_${'b'.repeat(56)}';
const sig = crypto.createHmac('sha256', secret).update(ts + '.' + body).digest('hex');
const event = await verifyWebhook({ body, headers: { 'x-timestamp': String(ts), 'x-hmac-signature': sig }, secret });
console.log(JSON.stringify({ client: typeof ov.createVerification, status: event.status, isApiError: isApiError(new Error('x')), canonical: typeof canonicalJson }));
`;
        fs.writeFileSync(path.join(app, 'check.mjs'), script);
        const out = JSON.parse((await run(process.execPath, ['check.mjs'], { cwd: app })).stdout);
        expect(out).toEqual({ client: 'function', status: 'approved', isApiError: false, canonical: 'function' });

        // Types included: a TypeScript app compiles against the installed package, and a wrong type is an error.
        fs.writeFileSync(
          path.join(app, 'check.ts'),
          `import { OpenVerify, type Verification } from '@open-verify/sdk';\nconst ov = new OpenVerify({ baseUrl: 'http://localhost:3000', apiKey: 'pk_x', secretKey: 'sk' });\nexport async function f(): Promise<Verification> { return ov.getVerification('id'); }\n`,
        );
        const tsc = path.join(root, 'node_modules/.bin/tsc');
        const flags = [
          '--noEmit',
          '--strict',
          '--module',
          'nodenext',
          '--moduleResolution',
          'nodenext',
          '--target',
          'es2022',
          '--lib',
          'es2022,dom',
          'check.ts',
        ];
        await run(tsc, flags, { cwd: app });
        fs.writeFileSync(
          path.join(app, 'check.ts'),
          `import { OpenVerify } from '@open-verify/sdk';\nnew OpenVerify({ baseUrl: 1 });\n`,
        );
        const wrong = await run(tsc, flags, { cwd: app }).then(
          () => '',
          (e: { stdout: string }) => e.stdout,
        );
        expect(wrong).toMatch(/check\.ts\(2,\d+\): error TS2322/);
      } finally {
        fs.rmSync(tmp, { recursive: true, force: true });
      }
    },
  );
});

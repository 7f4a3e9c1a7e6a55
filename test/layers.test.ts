/**
 * The boundary rule of eslint.config.mjs (docs/architecture.md "Layers"): an import that runs up the layers fails
 * `npm run lint`, which `npm test` and CI run. Each case lints a small source as if it lived at the path given.
 */
import path from 'node:path';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');
let eslint: ESLint;

beforeAll(() => {
  eslint = new ESLint({ cwd: root });
});

async function layerErrors(file: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath: path.join(root, file) });
  expect(result.messages.filter((m) => m.fatal)).toEqual([]);
  return result.messages.filter((m) => m.ruleId === 'import/no-restricted-paths').map((m) => m.message);
}

describe('the layers lint rule', () => {
  it('fails lib/core importing a domain capability, by relative path or by the @ alias', async () => {
    expect(
      await layerErrors(
        'lib/core/violation.ts',
        "import { getVerification } from '../domain/verifications/get';\nexport const v = getVerification;\n",
      ),
    ).toEqual([expect.stringContaining('lib/core imports nothing above it')]);
    expect(
      await layerErrors(
        'lib/core/crypto/violation.ts',
        "import { secretKeyAad } from '@/lib/domain/auth/keys';\nexport const v = secretKeyAad;\n",
      ),
    ).toHaveLength(1);
  });

  it('fails lib/core importing lib/db, and lib/db importing a capability', async () => {
    expect(
      await layerErrors('lib/core/violation.ts', "import { getDb } from '@/lib/db/client';\nexport const v = getDb;\n"),
    ).toHaveLength(1);
    expect(
      await layerErrors(
        'lib/db/violation.ts',
        "import { getVerification } from '../domain/verifications/get';\nexport const v = getVerification;\n",
      ),
    ).toEqual([expect.stringContaining('lib/db imports lib/core only')]);
  });

  it('fails lib/ importing the HTTP layer from the domain, or app/, server/, test/ from anywhere in lib/', async () => {
    expect(
      await layerErrors(
        'lib/domain/verifications/violation.ts',
        "import { json } from '@/lib/api/respond';\nexport const v = json;\n",
      ),
    ).toEqual([expect.stringContaining('lib/domain imports lib/core, lib/db and lower capabilities only')]);
    expect(
      await layerErrors(
        'lib/api/violation.ts',
        "import { POST } from '@/app/v1/verifications/route';\nexport const v = POST;\n",
      ),
    ).toHaveLength(1);
    expect(
      await layerErrors(
        'lib/api/violation.ts',
        `import { main } from '${'..'}/../server/ops';\nexport const v = main;\n`,
      ),
    ).toHaveLength(1);
    expect(
      await layerErrors(
        'lib/domain/media/violation.ts',
        "import { root } from '@/test/helpers/server';\nexport const v = root;\n",
      ),
    ).toHaveLength(1);
  });

  it('fails lib/ importing the web framework (Next.js, Auth.js, React)', async () => {
    const frameworkErrors = async (file: string, source: string) => {
      const [result] = await eslint.lintText(source, { filePath: path.join(root, file) });
      return result.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
    };
    expect(
      await frameworkErrors(
        'lib/domain/admin/violation.ts',
        "import { headers } from 'next/headers';\nexport const v = headers;\n",
      ),
    ).toEqual([expect.stringContaining('lib/ imports no web framework')]);
    expect(
      await frameworkErrors(
        'lib/domain/admin/auth/violation.ts',
        "import NextAuth from 'next-auth';\nexport const v = NextAuth;\n",
      ),
    ).toHaveLength(1);
    expect(
      await frameworkErrors('lib/db/violation.ts', "import { cache } from 'react';\nexport const v = cache;\n"),
    ).toHaveLength(1);
    expect(
      await frameworkErrors(
        'app/admin/_auth/allowed.ts',
        "import { headers } from 'next/headers';\nexport const v = headers;\n",
      ),
    ).toEqual([]);
  });

  it('fails a capability importing one on its own tier or above, and lets it import one below', async () => {
    // personal-data is on the lowest tier, verifications far above it
    expect(
      await layerErrors(
        'lib/domain/personal-data/violation.ts',
        "import { getVerification } from '../verifications/get';\nexport const v = getVerification;\n",
      ),
    ).toEqual([expect.stringContaining('lib/domain/personal-data (tier 1) imports capabilities of a lower tier only')]);
    // audit and media share a tier
    expect(
      await layerErrors(
        'lib/domain/audit/violation.ts',
        "import { mediaStore } from '@/lib/domain/media/storage';\nexport const v = mediaStore;\n",
      ),
    ).toHaveLength(1);
    expect(
      await layerErrors(
        'lib/domain/verifications/allowed.ts',
        "import { openVerificationWith } from '../personal-data/personal';\nimport { newId } from '@/lib/core/ids';\nimport { getDb } from '@/lib/db/client';\nexport const v = [openVerificationWith, newId, getDb];\n",
      ),
    ).toEqual([]);
  });
});

/**
 * The lint rule that keeps the admin area on lib/admin (eslint.config.mjs; docs/admin-guide.md "How the admin
 * area is built"): a page, server action or component under app/admin or components/admin that imports a table
 * (lib/db/schema) or the query builder (drizzle-orm) fails `npm run lint`; the same import elsewhere does not.
 */
import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const violation = `import { eq } from 'drizzle-orm';\nimport { adminUsers } from '@/lib/db/schema';\nimport { verifications } from '${'../'.repeat(3)}lib/db/schema/verifications';\nexport const x = [eq, adminUsers, verifications];\n`;

describe('admin pages import no table and no query builder', () => {
  it('fails under app/admin and components/admin, not in lib/', async () => {
    const eslint = new ESLint({ cwd: root });
    const restricted = async (file: string) => {
      const [r] = await eslint.lintText(violation, { filePath: path.join(root, file) });
      return r.messages.filter((m) => m.ruleId === 'no-restricted-imports').length;
    };
    expect(await restricted('app/admin/(area)/account/example.tsx')).toBe(3);
    expect(await restricted('app/admin/account-actions-example.ts')).toBe(3);
    expect(await restricted('components/admin/Example.tsx')).toBe(3);
    expect(await restricted('lib/domain/admin/example.ts')).toBe(0);
  });
});

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import type { Db } from '../client';
import { createWorkspace } from '@/lib/workspaces';
import { getActiveConsent, publishConsent } from '@/lib/consent';
import type { CreatedKey } from '@/lib/auth/keys';
import type { Workspace } from '@/lib/workspaces';

const here = path.dirname(fileURLToPath(import.meta.url));
export const DEFAULT_CONSENT_TEXT = () => fs.readFileSync(path.join(here, 'consent-en.txt'), 'utf8');

/**
 * First start only: publishes the default consent text and creates a demo workspace (placeholder
 * signature allowed, for trying the API by hand). Returns what was created so it can be shown once.
 */
export async function seedIfEmpty(db: Db): Promise<{ workspace: Workspace; secretKeys: CreatedKey[] } | null> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(727275)`);
    if (!(await getActiveConsent(tx))) {
      await publishConsent(tx, { text: DEFAULT_CONSENT_TEXT(), version: '2026-11-22' });
    }
    const [{ n }] = await tx.execute<{ n: number }>(sql`select count(*)::int as n from workspaces`);
    if (n > 0) return null;
    return createWorkspace(tx, { name: 'Demo workspace', settings: { allow_placeholder_signature: true } });
  });
}

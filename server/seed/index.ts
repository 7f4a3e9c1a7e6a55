import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import type { Db } from '../../lib/db/client';
import { createWorkspace } from '@/lib/domain/workspaces';
import { getActiveConsent, publishConsent } from '@/lib/domain/consent';
import { LOCALES, type Locale } from '@/lib/core/i18n/locales';
import type { CreatedKey } from '@/lib/domain/auth/keys';
import type { Workspace } from '@/lib/domain/workspaces';

const here = path.dirname(fileURLToPath(import.meta.url));
/**
 * The consent text the service publishes on first start, in every language of the capture page: server/seed/consent/
 * <locale>.txt, one meaning in sixteen languages (also an example of `ops consent:publish --text-dir`).
 */
export const DEFAULT_CONSENT_DIR = path.join(here, 'consent');
export const DEFAULT_CONSENT_TEXTS = (): Record<Locale, string> =>
  Object.fromEntries(
    LOCALES.map((l) => [l, fs.readFileSync(path.join(DEFAULT_CONSENT_DIR, `${l}.txt`), 'utf8')]),
  ) as Record<Locale, string>;
/** Its English text. */
/** The label of the version seeded on first start (the English-only text of earlier releases was 2026-11-22). */
export const DEFAULT_CONSENT_VERSION = '2026-11-26';

/**
 * First start only: publishes the default consent text (every language) and creates a demo workspace (placeholder
 * signature allowed, for trying the API by hand). Returns what was created so it can be shown once.
 */
export async function seedIfEmpty(db: Db): Promise<{ workspace: Workspace; secretKeys: CreatedKey[] } | null> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(727275)`);
    if (!(await getActiveConsent(tx))) {
      await publishConsent(tx, { texts: DEFAULT_CONSENT_TEXTS(), version: DEFAULT_CONSENT_VERSION });
    }
    const [{ n }] = await tx.execute<{ n: number }>(sql`select count(*)::int as n from workspaces`);
    if (n > 0) return null;
    return createWorkspace(tx, { name: 'Demo workspace', settings: { allow_placeholder_signature: true } });
  });
}

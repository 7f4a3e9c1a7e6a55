/**
 * The consent languages' migration (consent_languages_and_locale): a version published before languages existed
 * keeps its text as its English one (same bytes, same SHA-256, its URLs and acceptance unchanged), and an earlier
 * acceptance reads as one of the English text.
 */
import { describe, expect, it } from 'vitest';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import { MIGRATIONS_DIR } from '@/lib/db/migrate';
import { databaseBefore } from '@/test/helpers/migrations';
import { getActiveConsent, publicConsentVersion } from '.';

describe('consent versions from before languages', () => {
  const before = databaseBefore('_consent_languages_and_locale');

  it('become their English text, and their acceptances English ones', async () => {
    const h = await before.open(); // the database as it was before this migration
    try {
      const sha = 'ab'.repeat(32);
      const [v] =
        await h.sql`insert into consent_versions (version, text, text_sha256, is_active) values ('old', 'Old text ✓', ${sha}, true) returning id`;
      await h.sql`insert into workspaces (id, name, api_key) values ('ws_old', 'old', 'pk_old')`;
      await h.sql`insert into verifications (id, workspace_id, mode, flow, capture_token_hash) values ('00000000-0000-7000-8000-0000000000c1', 'ws_old', 'test', 'age', 'h_old')`;
      await h.sql`insert into consent_records (id, verification_id, consent_version_id, version, text_sha256) values ('con_old', '00000000-0000-7000-8000-0000000000c1', ${v.id}, 'old', ${sha})`;

      await migrate(h.db, { migrationsFolder: MIGRATIONS_DIR });
      expect([...(await h.sql`select consent_version_id, locale, text, text_sha256 from consent_texts`)]).toEqual([
        { consent_version_id: v.id, locale: 'en', text: 'Old text ✓', text_sha256: sha },
      ]);
      expect([...(await h.sql`select locale from consent_records`)]).toEqual([{ locale: 'en' }]);
      const active = (await getActiveConsent(h.db))!;
      expect(publicConsentVersion(active, 'fr')).toMatchObject({
        id: v.id,
        text_sha256: sha,
        locale: 'en',
        locales: ['en'],
      });
    } finally {
      await h.close();
    }
  });
});

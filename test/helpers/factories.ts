/** Tests make their own world: a workspace with keys per test, random ids, no shared fixtures. */
import { getDb, type DbOrTx } from '@/lib/db/client';
import { createWorkspace, type SettingsPatch } from '@/lib/domain/workspaces';
import { getActiveConsent, publishConsent } from '@/lib/domain/consent';
import { DEFAULT_CONSENT_TEXTS } from '@/server/seed';

export async function makeWorkspace(settings: SettingsPatch = {}, opts: { flow?: 'age' | 'kyc'; db?: DbOrTx } = {}) {
  const db = opts.db ?? getDb();
  const { workspace, secretKeys } = await createWorkspace(db, {
    name: `test ${Math.random().toString(36).slice(2, 8)}`,
    flow: opts.flow,
    settings,
  });
  const test = secretKeys.find((k) => k.mode === 'test')!;
  const live = secretKeys.find((k) => k.mode === 'live')!;
  return {
    workspace,
    apiKey: workspace.apiKey,
    testSecret: test.secret,
    liveSecret: live.secret,
    testKeyId: test.id,
    liveKeyId: live.id,
  };
}
export type TestWorkspace = Awaited<ReturnType<typeof makeWorkspace>>;

export async function ensureConsent(db: DbOrTx = getDb()) {
  return (
    (await getActiveConsent(db)) ?? publishConsent(db, { texts: DEFAULT_CONSENT_TEXTS(), version: 'test-default' })
  );
}

/** Reading one verification within a workspace and mode. */
import type { DbOrTx } from '@/lib/db/client';
import { notFound } from '../../core/errors';
import { UUID_RE } from '../../core/ids';
import { hot } from '@/lib/db/hot-queries';
import type { Mode } from '../auth/keys';
import { openVerificationWith } from '../personal-data/personal';

/** Where a caller may look: one workspace, one mode (docs/api.md: the other mode's ids are 404). */
export type Scope = { workspaceId: string; mode: Mode };

/**
 * A verification of this workspace and mode, with its latest consent record, in one round trip. Anything
 * else (a malformed id, another workspace's, the other mode's) is NOT_FOUND. Its personal fields, stored
 * encrypted under its data key, are opened: `result` is the whole result, `externalMetadataRaw` the metadata.
 */
export async function getVerification(db: DbOrTx, input: Scope & { id: string }) {
  const id = input.id.toLowerCase();
  if (!UUID_RE.test(id)) throw notFound('Verification');
  const [r] = await hot(db, 'verificationWithConsent').execute({
    id,
    workspaceId: input.workspaceId,
    mode: input.mode,
  });
  if (!r) throw notFound('Verification');
  const verification = openVerificationWith(r.v, r.dataKey);
  return { verification, consent: r.consent ?? undefined };
}

/** The consent text in the admin area (issue 15): global, so operators only; publishing is `consent:publish`'s operation. */
import type { DbOrTx } from '@/lib/db/client';
import { listConsentVersions, publishConsent } from '../consent';
import { actorId, assertOperator, type Actor } from './access';

/** Every version, newest first, with its texts in each language (the active one is shown in full, the others on demand). */
export async function consentHistory(db: DbOrTx, actor: Actor) {
  assertOperator(actor, 'Consent');
  return listConsentVersions(db);
}

export async function publishConsentAs(db: DbOrTx, actor: Actor, input: { text: string; version: string }) {
  assertOperator(actor, 'Consent');
  return publishConsent(db, { ...input, actor: actorId(actor) });
}

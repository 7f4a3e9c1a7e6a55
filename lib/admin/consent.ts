/** The consent text in the admin area (issue 15): global, so operators only; publishing is `consent:publish`'s operation. */
import { desc } from 'drizzle-orm';
import { consentVersions } from '@/db/schema';
import type { DbOrTx } from '@/db/client';
import { publishConsent } from '../consent';
import { actorId, assertOperator, type Actor } from './access';

/** Every version, newest first, with its text (the active one is shown in full, the others on demand). */
export async function consentHistory(db: DbOrTx, actor: Actor) {
  assertOperator(actor, 'Consent');
  return db.select().from(consentVersions).orderBy(desc(consentVersions.id));
}

export async function publishConsentAs(db: DbOrTx, actor: Actor, input: { text: string; version: string }) {
  assertOperator(actor, 'Consent');
  return publishConsent(db, { ...input, actor: actorId(actor) });
}

/**
 * Erasure from the admin area: lib/domain/retention's erasure behind the membership check, with the admin as the
 * actor of the receipt and the audit entry (`admin:<id>`). Owners and operators only.
 */
import { eq } from 'drizzle-orm';
import { verifications } from '@/lib/db/schema';
import type { Db } from '@/lib/db/client';
import { notFound } from '../../core/errors';
import { UUID_RE } from '../../core/ids';
import { eraseVerificationData } from '../retention/request';
import { actorId, assertCan, type Actor } from './access';

export async function eraseCase(db: Db, actor: Actor, input: { verificationId: string; requestId?: string }) {
  const id = String(input.verificationId).toLowerCase();
  const [v] = UUID_RE.test(id)
    ? await db.select({ workspaceId: verifications.workspaceId }).from(verifications).where(eq(verifications.id, id))
    : [];
  if (!v) throw notFound('Verification');
  assertCan(actor, 'case.erase', v.workspaceId, 'Verification');
  return eraseVerificationData(db, { verificationId: id, actor: actorId(actor), requestId: input.requestId });
}

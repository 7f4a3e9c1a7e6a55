/** The blocklist in the admin area: lib/domain/blocklist's operations behind the membership checks. */
import { and, desc, eq, sql } from 'drizzle-orm';
import { adminUsers, blocklistEntries, verifications, workspaces } from '@/lib/db/schema';
import type { Db, DbOrTx } from '@/lib/db/client';
import { addToBlocklist, removeFromBlocklist } from '../blocklist';
import { notFound } from '../../core/errors';
import { UUID_RE } from '../../core/ids';
import { actorId, assertCan, can, inScope, scopeFor, type Actor } from './access';

export async function blockCase(db: Db, actor: Actor, input: { verificationId: string; note?: string }) {
  const id = String(input.verificationId).toLowerCase();
  const [v] = UUID_RE.test(id)
    ? await db.select({ workspaceId: verifications.workspaceId }).from(verifications).where(eq(verifications.id, id))
    : [];
  if (!v) throw notFound('Verification');
  assertCan(actor, 'blocklist.add', v.workspaceId, 'Verification');
  return addToBlocklist(db, {
    verificationId: id,
    actor: actorId(actor),
    note: input.note?.trim().slice(0, 2000) || null,
  });
}

export async function unblock(db: Db, actor: Actor, input: { entryId: string }) {
  const [e] = await db
    .select({ workspaceId: blocklistEntries.workspaceId })
    .from(blocklistEntries)
    .where(eq(blocklistEntries.id, String(input.entryId)));
  if (!e) throw notFound('Blocklist entry');
  assertCan(actor, 'blocklist.remove', e.workspaceId, 'Blocklist entry');
  return removeFromBlocklist(db, { id: String(input.entryId), actor: actorId(actor) });
}

/** Entries the actor may see, newest first, with who added them (by email) and the verification's external id. */
export async function listBlocklistFor(
  db: DbOrTx,
  actor: Actor,
  input: { workspaceId?: string | null; limit?: number },
) {
  const scope = scopeFor(actor, 'blocklist.read', input.workspaceId);
  const rows = await db
    .select({
      id: blocklistEntries.id,
      workspaceId: blocklistEntries.workspaceId,
      workspaceName: workspaces.name,
      mode: blocklistEntries.mode,
      verificationId: blocklistEntries.verificationId,
      externalId: verifications.externalId,
      createdBy: blocklistEntries.createdBy,
      createdByEmail: adminUsers.email,
      createdAt: blocklistEntries.createdAt,
    })
    .from(blocklistEntries)
    .innerJoin(workspaces, eq(workspaces.id, blocklistEntries.workspaceId))
    .innerJoin(verifications, eq(verifications.id, blocklistEntries.verificationId))
    .leftJoin(adminUsers, eq(blocklistEntries.createdBy, sql`'admin:' || ${adminUsers.id}`))
    .where(and(inScope(scope, blocklistEntries.workspaceId)))
    .orderBy(desc(blocklistEntries.createdAt))
    .limit(input.limit ?? 500);
  return rows.map((r) => ({ ...r, canRemove: can(actor, 'blocklist.remove', r.workspaceId) }));
}

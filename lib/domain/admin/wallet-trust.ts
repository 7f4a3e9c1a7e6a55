/**
 * The wallet trust list in the admin area (docs/wallet.md "Trust lists"), read-only: operators see every root;
 * a workspace's owners see the roots their workspaces trust (those for every workspace, and their own). The
 * operator CLI adds and removes them.
 */
import { asc, eq, inArray, isNull, or } from 'drizzle-orm';
import { walletTrustAnchors, workspaces } from '@/lib/db/schema';
import type { DbOrTx } from '@/lib/db/client';
import { notFound } from '../../core/errors';
import { workspacesFor, type Actor } from './access';
import { DAY_MS } from '../../core/time';

/** Expiring within this many days is flagged on the page. */
export const EXPIRY_WARNING_DAYS = 60;

export async function trustAnchorsFor(db: DbOrTx, actor: Actor, now = new Date()) {
  const owned = workspacesFor(actor, 'workspace.read');
  if (!actor.isOperator && owned.length === 0) throw notFound('Page');
  const rows = await db
    .select({
      id: walletTrustAnchors.id,
      workspaceId: walletTrustAnchors.workspaceId,
      workspaceName: workspaces.name,
      subject: walletTrustAnchors.subject,
      country: walletTrustAnchors.country,
      notBefore: walletTrustAnchors.notBefore,
      notAfter: walletTrustAnchors.notAfter,
      fingerprintSha256: walletTrustAnchors.fingerprintSha256,
      createdAt: walletTrustAnchors.createdAt,
    })
    .from(walletTrustAnchors)
    .leftJoin(workspaces, eq(workspaces.id, walletTrustAnchors.workspaceId))
    .where(
      actor.isOperator
        ? undefined
        : or(isNull(walletTrustAnchors.workspaceId), inArray(walletTrustAnchors.workspaceId, owned)),
    )
    .orderBy(asc(walletTrustAnchors.country), asc(walletTrustAnchors.subject), asc(walletTrustAnchors.id));
  const soon = now.getTime() + EXPIRY_WARNING_DAYS * DAY_MS;
  return rows.map((r) => ({
    ...r,
    expired: r.notAfter.getTime() < now.getTime(),
    expiringSoon: r.notAfter.getTime() >= now.getTime() && r.notAfter.getTime() < soon,
  }));
}

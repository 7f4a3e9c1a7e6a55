/**
 * The trust list (docs/wallet.md "Trust lists"): the IACA roots whose document signers this service believes, added
 * and removed by the operator (`npm run ops -- wallet-trust:*`), for every workspace or for one. Nothing is trusted
 * by default. A root is read and checked when it is added (./x509.ts `readIacaPem`), and every change is audited.
 */
import { and, asc, eq, isNull, or } from 'drizzle-orm';
import { walletTrustAnchors, type WalletTrustAnchorRow } from '@/lib/db/schema';
import type { DbOrTx } from '@/lib/db/client';
import { DomainError, notFound } from '../../core/errors';
import { newId } from '../../core/ids';
import { audit } from '../audit/audit';
import { getWorkspaceOrThrow } from '../workspaces';
import { x509 } from './mdoc';
import { readIacaPem } from './x509';

export function publicTrustAnchor(r: WalletTrustAnchorRow, now = new Date()) {
  return {
    id: r.id,
    workspace_id: r.workspaceId,
    subject: r.subject,
    country: r.country,
    not_before: r.notBefore.toISOString(),
    not_after: r.notAfter.toISOString(),
    expired: r.notAfter.getTime() < now.getTime(),
    fingerprint_sha256: r.fingerprintSha256,
    created_at: r.createdAt.toISOString(),
  };
}

/**
 * Adds every root of a PEM file. A root already trusted in that scope is reported, not added twice. A file with no
 * certificate, or with one that cannot serve as a root, is refused whole (VALIDATION_ERROR naming each problem), so
 * a bundle is never half added.
 */
export async function addTrustAnchors(
  db: DbOrTx,
  input: { pem: string; workspaceId?: string | null; actor: string; now?: Date },
) {
  const now = input.now ?? new Date();
  const workspaceId = input.workspaceId ?? null;
  if (workspaceId) await getWorkspaceOrThrow(db, workspaceId);
  const read = await readIacaPem(input.pem, now);
  if (read.ok.length === 0 && read.refused.length === 0) {
    throw new DomainError('VALIDATION_ERROR', 'The file holds no PEM certificate (-----BEGIN CERTIFICATE-----).', {
      fields: { pem: ['No certificate found.'] },
    });
  }
  if (read.refused.length > 0) {
    throw new DomainError(
      'VALIDATION_ERROR',
      `Not added: ${read.refused.map((r) => `certificate ${r.index + 1}${r.subject ? ` (${r.subject})` : ''} is ${r.problem}`).join('; ')}.`,
      {
        fields: { pem: read.refused.map((r) => `certificate ${r.index + 1}: ${r.problem}`) },
        refused: read.refused,
      },
    );
  }
  return db.transaction(async (tx) => {
    const added: WalletTrustAnchorRow[] = [];
    const already: WalletTrustAnchorRow[] = [];
    for (const a of read.ok) {
      const scope = workspaceId
        ? eq(walletTrustAnchors.workspaceId, workspaceId)
        : isNull(walletTrustAnchors.workspaceId);
      const [existing] = await tx
        .select()
        .from(walletTrustAnchors)
        .where(and(scope, eq(walletTrustAnchors.fingerprintSha256, a.fingerprintSha256)));
      if (existing) {
        already.push(existing);
        continue;
      }
      const [row] = await tx
        .insert(walletTrustAnchors)
        .values({
          id: newId('iaca'),
          workspaceId,
          subject: a.subject,
          country: a.country ?? '',
          notBefore: a.notBefore,
          notAfter: a.notAfter,
          fingerprintSha256: a.fingerprintSha256,
          der: Buffer.from(a.der),
          createdBy: input.actor,
          createdAt: now,
        })
        .onConflictDoNothing()
        .returning();
      if (!row) {
        // Added by a concurrent run in between: the same root, reported as already there.
        already.push(
          (
            await tx
              .select()
              .from(walletTrustAnchors)
              .where(and(scope, eq(walletTrustAnchors.fingerprintSha256, a.fingerprintSha256)))
          )[0],
        );
        continue;
      }
      added.push(row);
      await audit(tx, {
        workspaceId,
        actor: input.actor,
        action: 'wallet_trust.added',
        data: {
          id: row.id,
          subject: row.subject,
          country: row.country,
          not_after: row.notAfter.toISOString(),
          fingerprint_sha256: row.fingerprintSha256,
          scope: workspaceId ?? 'all workspaces',
        },
      });
    }
    return { added, already };
  });
}

/** The roots trusted for a workspace (its own and those of every workspace), or, without one, every root. */
export async function listTrustAnchors(db: DbOrTx, input: { workspaceId?: string } = {}) {
  const where = input.workspaceId
    ? or(isNull(walletTrustAnchors.workspaceId), eq(walletTrustAnchors.workspaceId, input.workspaceId))
    : undefined;
  return db
    .select()
    .from(walletTrustAnchors)
    .where(where)
    .orderBy(asc(walletTrustAnchors.country), asc(walletTrustAnchors.subject), asc(walletTrustAnchors.id));
}

export async function removeTrustAnchor(db: DbOrTx, input: { id: string; actor: string }) {
  return db.transaction(async (tx) => {
    const [row] = await tx.delete(walletTrustAnchors).where(eq(walletTrustAnchors.id, input.id)).returning();
    if (!row) throw notFound('Trust anchor');
    await audit(tx, {
      workspaceId: row.workspaceId,
      actor: input.actor,
      action: 'wallet_trust.removed',
      data: { id: row.id, subject: row.subject, country: row.country, fingerprint_sha256: row.fingerprintSha256 },
    });
    return row;
  });
}

/** The certificates a workspace's wallet proofs are checked against. */
export async function trustedRootsFor(db: DbOrTx, workspaceId: string): Promise<x509.X509Certificate[]> {
  const rows = await db
    .select({ der: walletTrustAnchors.der })
    .from(walletTrustAnchors)
    .where(or(isNull(walletTrustAnchors.workspaceId), eq(walletTrustAnchors.workspaceId, workspaceId)));
  return rows.map((r) => new x509.X509Certificate(new Uint8Array(r.der)));
}

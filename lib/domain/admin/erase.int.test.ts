/**
 * Erasure from the admin area (issue #16): an owner or an operator erases a case now; the receipt verifies, names
 * the admin, and the audit entry does too; the case view then shows the receipt and no photo. A reviewer, and
 * anyone of another workspace, is refused as if the case did not exist.
 */
import { describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { auditLog, mediaBlobs } from '@/lib/db/schema';
import { makeWorkspace } from '@/test/helpers/factories';
import { makeAdmin, makeReviewCase, statusOf } from '@/test/helpers/admin-factories';
import { receiptKeys, verifyReceipt } from '../retention/receipts';
import { DomainError } from '../../core/errors';
import { eraseCase } from './erase';
import { loadCase } from './case';

describe('erasing a case from the admin area', () => {
  it('an owner erases an open case: abandoned, bytes gone, a receipt that verifies and names the admin, an audit entry', async () => {
    const ws = (await makeWorkspace()).workspace.id;
    const owner = await makeAdmin({ workspaces: [[ws, 'owner']] });
    const c = await makeReviewCase(ws, 'live');
    expect((await loadCase(getDb(), owner, c.id)).can.erase).toBe(true);

    const r = await eraseCase(getDb(), owner, { verificationId: c.id });
    expect(r.erasedNow).toBe(true);
    expect(r.receipt.receipt).toMatchObject({
      verification_id: c.id,
      trigger: 'request',
      requested_by: `admin:${owner.userId}`,
      status: 'abandoned',
    });
    expect(verifyReceipt(r.receipt, await receiptKeys(getDb()))).toEqual({ valid: true });
    expect((await statusOf(c.id)).status).toBe('abandoned');
    expect(await getDb().select().from(mediaBlobs).where(eq(mediaBlobs.mediaId, c.mediaId))).toEqual([]);
    const entries = await getDb()
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.verificationId, c.id), eq(auditLog.action, 'verification.data_erased')));
    expect(entries.map((e) => e.actor)).toEqual([`admin:${owner.userId}`]);

    const view = await loadCase(getDb(), owner, c.id);
    expect(view.photos).toEqual([]);
    expect(view.erasure?.receipt?.receipt.id).toBe(r.receipt.receipt.id);
    // A second erasure answers with the same receipt.
    expect((await eraseCase(getDb(), owner, { verificationId: c.id })).receipt.receipt.id).toBe(r.receipt.receipt.id);
  });

  it('an operator may; a reviewer of the workspace and an owner of another are refused as NOT_FOUND, and nothing is erased', async () => {
    const ws = (await makeWorkspace()).workspace.id;
    const other = (await makeWorkspace()).workspace.id;
    const reviewer = await makeAdmin({ workspaces: [[ws, 'reviewer']] });
    const stranger = await makeAdmin({ workspaces: [[other, 'owner']] });
    const operator = await makeAdmin({ operator: true });
    const c = await makeReviewCase(ws, 'test', { status: 'approved' });
    expect((await loadCase(getDb(), reviewer, c.id)).can.erase).toBe(false);
    for (const who of [reviewer, stranger]) {
      const e = await eraseCase(getDb(), who, { verificationId: c.id }).catch((x) => x);
      expect(e).toBeInstanceOf(DomainError);
      expect(e.code).toBe('NOT_FOUND');
    }
    expect(await getDb().select().from(mediaBlobs).where(eq(mediaBlobs.mediaId, c.mediaId))).toHaveLength(1);
    const r = await eraseCase(getDb(), operator, { verificationId: c.id });
    // A decided case keeps its decision.
    expect(r.receipt.receipt).toMatchObject({ status: 'approved', requested_by: `admin:${operator.userId}` });
    expect((await statusOf(c.id)).status).toBe('approved');
  });
});

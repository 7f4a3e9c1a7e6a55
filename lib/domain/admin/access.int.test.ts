/**
 * Who sees what: a reviewer of workspace A gets NOT_FOUND for anything of workspace B (queue, search,
 * case, decision, blocklist, image links), an operator sees every workspace, and image links work only
 * for the session they were made for, until they expire; every image view is audited.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { auditLog, faceEmbeddings, EMBEDDING_DIMENSIONS } from '@/lib/db/schema';
import { makeWorkspace } from '@/test/helpers/factories';
import { makeAdmin, makeReviewCase } from '@/test/helpers/admin-factories';
import type { DomainError } from '../../core/errors';
import type { Actor } from './access';
import { auditCaseView, loadCase } from './case';
import { decideCase } from './decide';
import { LINK_SECONDS, mediaLink, openMedia } from './media-links';
import { queueCounts, reviewQueue } from './queue';
import { searchVerifications } from './search';
import { blockCase, listBlocklistFor, unblock } from './blocklist';
import { searchAudit } from './audit-log';

const code = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e: DomainError) => e.code,
  );
const tokenOf = (url: string) => url.replace('/admin/media/', '');

describe('admin access by membership', () => {
  let a: string;
  let b: string;
  let reviewerA: Actor;
  let ownerB: Actor;
  let operator: Actor;
  let caseA: { id: string; mediaId: string };
  let caseB: { id: string; mediaId: string };
  beforeAll(async () => {
    a = (await makeWorkspace()).workspace.id;
    b = (await makeWorkspace()).workspace.id;
    reviewerA = await makeAdmin({ workspaces: [[a, 'reviewer']] });
    ownerB = await makeAdmin({ workspaces: [[b, 'owner']] });
    operator = await makeAdmin({ operator: true });
    caseA = await makeReviewCase(a, 'test', { externalId: 'shared-ext' });
    caseB = await makeReviewCase(b, 'test', { externalId: 'shared-ext' });
  });

  it('the queue and its counts show only the workspaces the admin belongs to', async () => {
    const q = await reviewQueue(getDb(), reviewerA, { mode: 'test' });
    expect(q.items.map((i) => i.id)).toEqual([caseA.id]);
    expect(await reviewQueue(getDb(), reviewerA, { workspaceId: b, mode: 'test' })).toMatchObject({ items: [] });
    const counts = await queueCounts(getDb(), reviewerA);
    expect(counts).toEqual([{ workspaceId: a, mode: 'test', n: 1 }]);
    const all = await queueCounts(getDb(), operator);
    expect(all.filter((c) => c.workspaceId === a || c.workspaceId === b)).toHaveLength(2);
  });

  it("search finds another workspace's case by neither id nor external_id", async () => {
    expect((await searchVerifications(getDb(), reviewerA, { q: caseB.id })).items).toEqual([]);
    expect((await searchVerifications(getDb(), reviewerA, { q: 'shared-ext' })).items.map((i) => i.id)).toEqual([
      caseA.id,
    ]);
    expect((await searchVerifications(getDb(), operator, { q: 'shared-ext' })).items.map((i) => i.id).sort()).toEqual(
      [caseA.id, caseB.id].sort(),
    );
  });

  it('the case, a decision and the blocklist of workspace B are NOT_FOUND to a reviewer of A', async () => {
    expect(await code(loadCase(getDb(), reviewerA, caseB.id))).toBe('NOT_FOUND');
    expect(await code(loadCase(getDb(), reviewerA, 'not-a-uuid'))).toBe('NOT_FOUND');
    expect(
      await code(decideCase(getDb(), reviewerA, { verificationId: caseB.id, decision: { status: 'approved' } })),
    ).toBe('NOT_FOUND');
    expect(await code(blockCase(getDb(), reviewerA, { verificationId: caseB.id }))).toBe('NOT_FOUND');
    expect((await loadCase(getDb(), reviewerA, caseA.id)).verification.id).toBe(caseA.id);
    expect((await loadCase(getDb(), operator, caseB.id)).verification.id).toBe(caseB.id);
  });

  it('an image link opens for its own session only, within its lifetime, and each view is audited', async () => {
    const c = await loadCase(getDb(), ownerB, caseB.id);
    const url = c.photos[0].url;
    expect(url).toMatch(/^\/admin\/media\/[\w-]+\.[\w-]+$/);
    const got = await openMedia(getDb(), ownerB, tokenOf(url));
    expect(got.bytes.toString()).toContain('bytes all the same');
    // The same URL in another admin's browser (even an operator's), or later, or altered: not found.
    expect(await code(openMedia(getDb(), reviewerA, tokenOf(url)))).toBe('NOT_FOUND');
    expect(await code(openMedia(getDb(), operator, tokenOf(url)))).toBe('NOT_FOUND');
    expect(await code(openMedia(getDb(), ownerB, tokenOf(url), new Date(Date.now() + (LINK_SECONDS + 1) * 1000)))).toBe(
      'NOT_FOUND',
    );
    expect(
      await code(
        openMedia(
          getDb(),
          ownerB,
          tokenOf(url).replace(/.$/, (ch) => (ch === 'A' ? 'B' : 'A')),
        ),
      ),
    ).toBe('NOT_FOUND');
    // A validly signed link for workspace B's media made for reviewer A's own session: the membership check refuses it.
    expect(await code(openMedia(getDb(), reviewerA, tokenOf(mediaLink(reviewerA, caseB.mediaId))))).toBe('NOT_FOUND');
    const views = await getDb()
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.verificationId, caseB.id), eq(auditLog.action, 'media.viewed')));
    expect(views.map((v) => v.actor)).toEqual([`admin:${ownerB.userId}`]);
    expect(views[0].data).toMatchObject({ media_id: caseB.mediaId, type: 'selfie' });
  });

  it('opening a case is audited with the admin', async () => {
    const c = await loadCase(getDb(), reviewerA, caseA.id);
    await auditCaseView(getDb(), reviewerA, c);
    const page = await searchAudit(getDb(), operator, { verification: caseA.id, action: 'verification.viewed' });
    expect(page.items.map((i) => i.who)).toEqual([reviewerA.email]);
  });

  it('the audit page is for owners and operators: a reviewer sees nothing, an owner only their workspace', async () => {
    expect((await searchAudit(getDb(), reviewerA, { verification: caseA.id })).items).toEqual([]);
    expect((await searchAudit(getDb(), ownerB, { verification: caseA.id })).items).toEqual([]);
    expect((await searchAudit(getDb(), ownerB, { verification: caseB.id })).items.length).toBeGreaterThan(0);
    expect(await code(searchAudit(getDb(), ownerB, { action: 'DROP TABLE' }))).toBe('VALIDATION_ERROR');
  });

  it('reviewers add to the blocklist; only owners and operators remove', async () => {
    const noFace = await makeReviewCase(a, 'test');
    // No usable face in the stored analysis: a clear validation error, not a crash.
    expect(await code(blockCase(getDb(), reviewerA, { verificationId: noFace.id }))).toBe('VALIDATION_ERROR');
    const face = await makeReviewCase(a, 'test');
    await getDb()
      .insert(faceEmbeddings)
      .values({
        verificationId: face.id,
        workspaceId: a,
        mode: 'test',
        account: face.id,
        embedding: Array(EMBEDDING_DIMENSIONS).fill(0.09),
      });
    const entry = await blockCase(getDb(), reviewerA, { verificationId: face.id, note: 'same face as a known fraud' });
    const listed = await listBlocklistFor(getDb(), reviewerA, {});
    expect(listed.map((e) => [e.id, e.canRemove, e.createdByEmail])).toEqual([[entry.id, false, reviewerA.email]]);
    expect(await code(unblock(getDb(), reviewerA, { entryId: entry.id }))).toBe('NOT_FOUND');
    expect(await code(unblock(getDb(), ownerB, { entryId: entry.id }))).toBe('NOT_FOUND');
    const ownerA = await makeAdmin({ workspaces: [[a, 'owner']] });
    expect((await unblock(getDb(), ownerA, { entryId: entry.id })).id).toBe(entry.id);
    expect(await listBlocklistFor(getDb(), reviewerA, {})).toEqual([]);
  });
});

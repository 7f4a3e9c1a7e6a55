/** The trust list: what may be added as an IACA root, per scope, audited; and who sees it in the admin area. */
import { beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { auditLog } from '@/lib/db/schema';
import { makeWorkspace, type TestWorkspace } from '@/test/helpers/factories';
import { makeAdmin } from '@/test/helpers/admin-factories';
import { makeIaca, makeSigner } from '@/test/helpers/wallet';
import { trustAnchorsFor } from '@/lib/domain/admin/wallet-trust';
import { addTrustAnchors, listTrustAnchors, removeTrustAnchor, trustedRootsFor } from './trust';

const DAY = 86_400_000;

describe('wallet trust list', () => {
  let a: TestWorkspace;
  let b: TestWorkspace;
  beforeAll(async () => {
    a = await makeWorkspace();
    b = await makeWorkspace();
  });

  it('adds every root of a bundle for one workspace, reports one already there, and audits each', async () => {
    const [r1, r2] = [
      await makeIaca({ name: 'Bundle One', country: 'NL' }),
      await makeIaca({ name: 'Bundle Two', country: 'be' }),
    ];
    const first = await addTrustAnchors(getDb(), {
      pem: `${r1.pem}\n${r2.pem}`,
      workspaceId: a.workspace.id,
      actor: 'operator',
    });
    expect(first.added.map((x) => [x.subject, x.country, x.workspaceId])).toEqual([
      [r1.cert.subject, 'NL', a.workspace.id],
      [r2.cert.subject, 'BE', a.workspace.id],
    ]);
    const again = await addTrustAnchors(getDb(), { pem: r1.pem, workspaceId: a.workspace.id, actor: 'operator' });
    expect([again.added.length, again.already.map((x) => x.id)]).toEqual([0, [first.added[0].id]]);
    const audits = await getDb()
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.workspaceId, a.workspace.id), eq(auditLog.action, 'wallet_trust.added')));
    expect(audits.map((x) => (x.data as { id: string }).id).sort()).toEqual(first.added.map((x) => x.id).sort());
    // Trusted by that workspace only.
    expect((await trustedRootsFor(getDb(), a.workspace.id)).map((c) => c.subject)).toEqual(
      expect.arrayContaining([r1.cert.subject, r2.cert.subject]),
    );
    expect((await trustedRootsFor(getDb(), b.workspace.id)).map((c) => c.subject)).not.toContain(r1.cert.subject);
    expect((await listTrustAnchors(getDb(), { workspaceId: b.workspace.id })).map((x) => x.id)).not.toContain(
      first.added[0].id,
    );
  });

  it('refuses what cannot serve as a root, whole: not PEM, a document signer, an expired root, a root without a country', async () => {
    const root = await makeIaca({ name: `Refused bundle ${Math.random().toString(36).slice(2, 8)}` });
    const signer = await makeSigner(root);
    const expired = await makeIaca({
      name: 'Old',
      notBefore: new Date(Date.now() - 400 * DAY),
      notAfter: new Date(Date.now() - DAY),
    });
    const cases: [string, RegExp][] = [
      ['hello', /no PEM certificate/],
      ['-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----', /not a readable X.509 certificate/],
      [`${root.pem}\n${signer.cert.toString('pem')}`, /not a CA certificate/],
      [expired.pem, /expired/],
    ];
    for (const [pem, problem] of cases) {
      const e = await addTrustAnchors(getDb(), { pem, actor: 'operator' }).catch((x: unknown) => x);
      expect(e).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringMatching(problem) });
    }
    // The good root of the refused bundle was not added either.
    expect((await listTrustAnchors(getDb())).map((x) => x.subject)).not.toContain(root.cert.subject);
    await expect(
      addTrustAnchors(getDb(), { pem: root.pem, workspaceId: 'ws_nope', actor: 'operator' }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('removes a root (audited); an unknown id is NOT_FOUND', async () => {
    const root = await makeIaca({ name: 'Removed' });
    const { added } = await addTrustAnchors(getDb(), { pem: root.pem, workspaceId: b.workspace.id, actor: 'operator' });
    await removeTrustAnchor(getDb(), { id: added[0].id, actor: 'operator' });
    expect((await trustedRootsFor(getDb(), b.workspace.id)).map((c) => c.subject)).not.toContain(root.cert.subject);
    expect(
      await getDb()
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.workspaceId, b.workspace.id), eq(auditLog.action, 'wallet_trust.removed'))),
    ).toHaveLength(1);
    await expect(removeTrustAnchor(getDb(), { id: added[0].id, actor: 'operator' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('admin area: an operator sees every root, an owner what their workspaces trust, a reviewer nothing', async () => {
    const own = await makeIaca({ name: 'Owner A' });
    const theirs = await makeIaca({ name: 'Owner B' });
    const everyone = await makeIaca({ name: 'Everyone' });
    await addTrustAnchors(getDb(), { pem: own.pem, workspaceId: a.workspace.id, actor: 'operator' });
    await addTrustAnchors(getDb(), { pem: theirs.pem, workspaceId: b.workspace.id, actor: 'operator' });
    await addTrustAnchors(getDb(), { pem: everyone.pem, actor: 'operator' });
    const subjects = async (actor: Awaited<ReturnType<typeof makeAdmin>>) =>
      (await trustAnchorsFor(getDb(), actor)).map((x) => x.subject);
    const op = await subjects(await makeAdmin({ operator: true }));
    expect(op).toEqual(expect.arrayContaining([own.cert.subject, theirs.cert.subject, everyone.cert.subject]));
    const owner = await subjects(await makeAdmin({ workspaces: [[a.workspace.id, 'owner']] }));
    expect(owner).toEqual(expect.arrayContaining([own.cert.subject, everyone.cert.subject]));
    expect(owner).not.toContain(theirs.cert.subject);
    await expect(
      trustAnchorsFor(getDb(), await makeAdmin({ workspaces: [[a.workspace.id, 'reviewer']] })),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

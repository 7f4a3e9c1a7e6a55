/** The operator CLI's wallet trust list and wallet setting, through main() in this process (docs/wallet.md "Trust lists"). */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeWorkspace } from '@/test/helpers/factories';
import { makeIaca, makeSigner } from '@/test/helpers/wallet';
import { ops } from '@/test/helpers/ops-process';

describe('operator CLI: wallet trust list', { timeout: 300_000 }, () => {
  it('wallet-trust:add for a workspace (a non-root refused), :list, :remove, and workspace:settings --wallet', async () => {
    const w = await makeWorkspace();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ov-wallet-'));
    const root = await makeIaca({ name: 'CLI Root', country: 'SE' });
    fs.writeFileSync(path.join(dir, 'root.pem'), root.pem);
    fs.writeFileSync(path.join(dir, 'signer.pem'), (await makeSigner(root)).cert.toString('pem'));

    const added = await ops('wallet-trust:add', '--pem', path.join(dir, 'root.pem'), '--workspace', w.workspace.id);
    expect(added.code).toBe(0);
    expect(added.out).toEqual({
      added: [
        {
          id: expect.stringMatching(/^iaca_/),
          workspace_id: w.workspace.id,
          subject: root.cert.subject,
          country: 'SE',
          not_before: expect.any(String),
          not_after: root.cert.notAfter.toISOString(),
          expired: false,
          fingerprint_sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
          created_at: expect.any(String),
        },
      ],
      already_trusted: [],
    });
    const bad = await ops('wallet-trust:add', '--pem', path.join(dir, 'signer.pem'));
    expect([bad.code, bad.out.error.code, bad.out.error.details.fields.pem[0]]).toEqual([
      1,
      'VALIDATION_ERROR',
      expect.stringMatching(/not a CA certificate/),
    ]);

    const listed = await ops('wallet-trust:list', '--workspace', w.workspace.id);
    expect(listed.out.trust_anchors.map((a: { id: string }) => a.id)).toContain(added.out.added[0].id);
    const removed = await ops('wallet-trust:remove', '--id', added.out.added[0].id);
    expect(removed.out.removed.id).toBe(added.out.added[0].id);

    const set = await ops('workspace:settings', '--workspace', w.workspace.id, '--wallet', 'offer');
    expect(set.out.workspace.wallet).toBe('offer');
    expect(
      (await ops('workspace:settings', '--workspace', w.workspace.id, '--wallet', 'always')).out.error.details.fields
        .wallet,
    ).toEqual(['Must be off or offer.']);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

/** The operator CLI's erasure, receipt, retention, export and encryption commands (main() in this process: test/helpers/ops-process.ts). */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { auditLog, verifications } from '@/lib/db/schema';
import { keyIdOf } from '@/lib/core/crypto/keyring';
import { makeWorkspace } from '@/test/helpers/factories';
import { heldVerification, PERSON } from '@/test/helpers/retention';
import { ops } from '@/test/helpers/ops-process';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'ov-ops-'));
const audits = async (id: string, action: string) =>
  getDb()
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.verificationId, id), eq(auditLog.action, action)));

describe('operator CLI: retention and erasure', { timeout: 300_000 }, () => {
  it('verification:erase prints a receipt that receipt:verify accepts (and refuses once altered); the erasure is audited', async () => {
    const w = await makeWorkspace({}, { flow: 'kyc' });
    const h = await heldVerification(getDb(), w);
    const erased = await ops('verification:erase', '--id', h.id);
    expect(erased.code).toBe(0);
    expect(erased.out).toMatchObject({
      verification: { id: h.id, status: 'approved', data_erased_at: expect.any(String) },
      erased_now: true,
      receipt: { receipt: { trigger: 'request', requested_by: 'operator' } },
    });
    const dir = tmp();
    fs.writeFileSync(path.join(dir, 'receipt.json'), erased.raw);
    const ok = await ops('receipt:verify', '--file', path.join(dir, 'receipt.json'));
    expect(ok.out).toMatchObject({ valid: true, verification_id: h.id, receipt_id: erased.out.receipt.receipt.id });
    const altered = JSON.parse(erased.raw);
    altered.receipt.receipt.erased_at = '2020-01-01T00:00:00.000Z';
    fs.writeFileSync(path.join(dir, 'altered.json'), JSON.stringify(altered));
    const bad = await ops('receipt:verify', '--file', path.join(dir, 'altered.json'));
    expect([bad.code, bad.out.error.code]).toEqual([1, 'INVALID_SIGNATURE']);
    const [a] = await audits(h.id, 'verification.data_erased');
    expect(a).toMatchObject({
      actor: 'operator',
      data: { trigger: 'request', receipt_id: erased.out.receipt.receipt.id },
    });
    // Again: the same receipt, no second erasure.
    const again = await ops('verification:erase', '--id', h.id);
    expect([again.out.erased_now, again.out.receipt]).toEqual([false, erased.out.receipt]);
    expect((await ops('verification:erase', '--id', 'nope')).out.error.code).toBe('NOT_FOUND');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('retention:run --now erases what is due by then', async () => {
    const w = await makeWorkspace({ media_retention_days: 10 });
    const h = await heldVerification(getDb(), w, { decidedDaysAgo: 5 });
    const soon = await ops('retention:run');
    expect(soon.code).toBe(0);
    expect((await getDb().select().from(verifications).where(eq(verifications.id, h.id)))[0].dataErasedAt).toBeNull();
    const later = await ops('retention:run', '--now', new Date(Date.now() + 6 * 86_400_000).toISOString());
    expect(later.out.erased).toBeGreaterThanOrEqual(1);
    expect(
      (await getDb().select().from(verifications).where(eq(verifications.id, h.id)))[0].dataErasedAt,
    ).toBeInstanceOf(Date);
    expect((await ops('retention:run', '--now', 'yesterday')).out.error.code).toBe('VALIDATION_ERROR');
    expect((await ops('retention:run', '--now', '2020-01-01T00:00:00Z')).out.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { fields: { now: ['not in the past'] } },
    });
  });

  it('verification:export --out writes the whole bundle with its photos, readable by the operator only, and audits it', async () => {
    const w = await makeWorkspace({}, { flow: 'kyc' });
    const h = await heldVerification(getDb(), w);
    const dir = tmp();
    const file = path.join(dir, 'export.json');
    const r = await ops('verification:export', '--id', h.id, '--out', file);
    expect(r.out).toMatchObject({ file, photos: 1, bytes: fs.statSync(file).size });
    expect((fs.statSync(file).mode & 0o777).toString(8)).toBe('600');
    const bundle = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(Buffer.from(bundle.media[0].photo_base64, 'base64')).toEqual(h.photo);
    expect(bundle.verification.result.person).toEqual(PERSON);
    expect(await audits(h.id, 'verification.exported')).toHaveLength(1);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('encryption:status names the key in use by its id; with keys from the environment, rotate asks for them there', async () => {
    const status = await ops('encryption:status');
    expect(status.out.encryption).toMatchObject({
      primary: keyIdOf(Buffer.from(process.env.ENCRYPTION_KEY!, 'base64')),
      source: 'environment',
      accepted: [],
    });
    expect(JSON.stringify(status.out)).not.toContain(process.env.ENCRYPTION_KEY);
    const rotate = await ops('encryption:rotate');
    expect([rotate.code, rotate.out.error.code]).toEqual([1, 'VALIDATION_ERROR']);
  });
});

/** A created verification and its audit entry land together, in one statement (no partial write). */
import { and, eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { getDb } from '@/lib/db/client';
import { auditLog } from '@/lib/db/schema';
import { POST as create } from '@/app/v1/verifications/route';
import { call } from '@/test/helpers/http';
import { makeWorkspace } from '@/test/helpers/factories';

describe('create is one write', () => {
  it('the verification and its verification.created entry (with its data) exist together; a replay adds neither', async () => {
    const w = await makeWorkspace();
    const h = { 'idempotency-key': `one-${Math.random()}` };
    const a = await call(create, {
      method: 'POST',
      path: '/v1/verifications',
      body: { external_id: 'e-1' },
      headers: h,
      apiKey: w.apiKey,
      secret: w.testSecret,
    });
    const b = await call(create, {
      method: 'POST',
      path: '/v1/verifications',
      body: { external_id: 'e-1' },
      headers: h,
      apiKey: w.apiKey,
      secret: w.testSecret,
    });
    expect(b.json.data.id).toBe(a.json.data.id);
    const entries = await getDb()
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.verificationId, a.json.data.id), eq(auditLog.action, 'verification.created')));
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      workspaceId: w.workspace.id,
      actor: `key:${w.testKeyId}`,
      data: { mode: 'test', external_id: 'e-1' },
    });
    // Across the workspace: no verification without its entry.
    const [{ orphans }] = await getDb().execute<{ orphans: number }>(
      sql`select count(*)::int as orphans from verifications v where v.workspace_id = ${w.workspace.id} and not exists (select 1 from audit_log a where a.verification_id = v.id and a.action = 'verification.created')`,
    );
    expect(orphans).toBe(0);
  });
});

/** The transition table of docs/api.md "Statuses and transitions", applied by one function that refuses every other move. */
import { beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { VERIFICATION_STATUSES, verifications, type VerificationStatus } from '@/lib/db/schema';
import { applyTransition, findTransition, TERMINAL, TRANSITIONS, type Trigger } from './state-machine';
import { createVerification } from '../verifications/create';
import { makeWorkspace, type TestWorkspace } from '@/test/helpers/factories';

const TRIGGERS = [...new Set(TRANSITIONS.map((t) => t.trigger))] as Trigger[];

describe('state machine', () => {
  let w: TestWorkspace;
  beforeAll(async () => {
    w = await makeWorkspace();
  });

  async function verificationIn(status: VerificationStatus, mode: 'test' | 'live' = 'live') {
    const { row } = await createVerification(getDb(), {
      workspace: w.workspace,
      keyMode: mode,
      fields: {},
      actor: 'key:k',
    });
    await getDb().update(verifications).set({ status }).where(eq(verifications.id, row.id));
    return row.id;
  }

  it('mirrors docs/api.md: every documented move is in the table', () => {
    const moves = TRANSITIONS.map((t) => `${t.from}->${t.to}`);
    for (const m of [
      'created->started',
      'created->expired',
      'started->submitted',
      'started->abandoned',
      'submitted->approved',
      'submitted->declined',
      'submitted->resubmission_requested',
      'submitted->review',
      'resubmission_requested->started',
      'review->approved',
      'review->declined',
      'review->resubmission_requested',
    ])
      expect(moves).toContain(m);
    for (const t of TRANSITIONS) expect(TERMINAL.has(t.from)).toBe(false);
  });

  for (const t of TRANSITIONS) {
    it(`${t.from} --${t.trigger}--> ${t.to}`, async () => {
      const id = await verificationIn(t.from, t.testOnly ? 'test' : 'live');
      const { row } = await applyTransition(getDb(), { verificationId: id, trigger: t.trigger });
      expect(row.status).toBe(t.to);
      if (TERMINAL.has(t.to)) expect(row.completedAt).toBeInstanceOf(Date);
      if (t.to === 'started') expect(row.startedAt).toBeInstanceOf(Date);
    });
  }

  it('refuses every move not in the table with INVALID_STATUS, and leaves the row unchanged', async () => {
    let refused = 0;
    for (const status of VERIFICATION_STATUSES) {
      for (const trigger of TRIGGERS) {
        if (findTransition(status, trigger, 'live')) continue;
        const id = await verificationIn(status);
        await expect(applyTransition(getDb(), { verificationId: id, trigger })).rejects.toMatchObject({
          code: 'INVALID_STATUS',
        });
        const [row] = await getDb().select().from(verifications).where(eq(verifications.id, id));
        expect(row.status).toBe(status);
        refused++;
      }
    }
    expect(refused).toBeGreaterThan(80);
  });

  it('admin resubmission is a test-mode move only', async () => {
    const id = await verificationIn('review', 'live');
    await expect(applyTransition(getDb(), { verificationId: id, trigger: 'admin_resubmit' })).rejects.toMatchObject({
      code: 'INVALID_STATUS',
    });
  });

  it('of two racing moves from one status exactly one wins', async () => {
    const id = await verificationIn('review');
    const results = await Promise.allSettled([
      applyTransition(getDb(), { verificationId: id, trigger: 'admin_approve' }),
      applyTransition(getDb(), { verificationId: id, trigger: 'admin_decline' }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason.code)).toEqual(
      ['INVALID_STATUS'],
    );
  });
});

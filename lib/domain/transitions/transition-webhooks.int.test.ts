/**
 * No hidden work (docs/architecture.md "No hidden work"): a status change writes the verification only, and the
 * webhook it fires is written by its caller, visibly, in the same transaction.
 */
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { verifications, webhookEvents } from '@/lib/db/schema';
import { makeWorkspace, type TestWorkspace } from '@/test/helpers/factories';
import { createVerification } from '../verifications/create';
import { enqueueTransitionWebhook } from '../webhooks/outbox';
import { applyTransition } from './state-machine';

const root = path.resolve(import.meta.dirname, '../../..');

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sources(p) : /\.tsx?$/.test(e.name) && !/\.test\.ts$/.test(e.name) ? [p] : [];
  });
}

describe('a status change and its webhook', () => {
  let w: TestWorkspace;
  beforeAll(async () => {
    w = await makeWorkspace();
  });
  const events = (id: string) => getDb().select().from(webhookEvents).where(eq(webhookEvents.verificationId, id));

  it('applyTransition writes no webhook event; enqueueTransitionWebhook writes the one the move fires, in the same transaction', async () => {
    const { row } = await createVerification(getDb(), {
      workspace: w.workspace,
      keyMode: 'test',
      fields: {},
      actor: 'key:k',
    });
    await getDb().update(verifications).set({ status: 'review' }).where(eq(verifications.id, row.id));
    const now = new Date('2031-02-03T04:05:06Z');
    const written = await getDb().transaction(async (tx) => {
      const moved = await applyTransition(tx, { verificationId: row.id, trigger: 'admin_approve', now });
      expect(moved.transition.webhook).toBe(true);
      expect(await tx.select().from(webhookEvents).where(eq(webhookEvents.verificationId, row.id))).toEqual([]);
      return enqueueTransitionWebhook(tx, moved);
    });
    const [e, ...more] = await events(row.id);
    expect(more).toEqual([]);
    expect(e.id).toBe(written);
    expect(JSON.parse(e.body)).toMatchObject({ verification_id: row.id, status: 'approved' });
    expect(e.nextAttemptAt.getTime()).toBe(now.getTime());
  });

  it('a move that fires none (an upload) gets none', async () => {
    const { row } = await createVerification(getDb(), {
      workspace: w.workspace,
      keyMode: 'test',
      fields: {},
      actor: 'key:k',
    });
    const written = await getDb().transaction(async (tx) =>
      enqueueTransitionWebhook(tx, await applyTransition(tx, { verificationId: row.id, trigger: 'media_uploaded' })),
    );
    expect(written).toBeNull();
    expect(await events(row.id)).toEqual([]);
  });

  it('every caller of applyTransition in lib/ writes the webhook right after its move', () => {
    const callers = sources(path.join(root, 'lib')).filter(
      (f) => !f.endsWith(path.join('transitions', 'state-machine.ts')),
    );
    const missing: string[] = [];
    let moves = 0;
    for (const f of callers) {
      const text = fs.readFileSync(f, 'utf8');
      const n = text.match(/\bapplyTransition\(/g)?.length ?? 0;
      moves += n;
      if (n > (text.match(/\benqueueTransitionWebhook\(/g)?.length ?? 0)) missing.push(path.relative(root, f));
    }
    expect(moves).toBeGreaterThanOrEqual(8);
    expect(missing).toEqual([]);
  });
});

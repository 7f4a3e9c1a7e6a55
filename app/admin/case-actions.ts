'use server';
/** Server actions of the case view: decide, and add to or remove from the blocklist (zod, then lib/domain/admin). */
import { revalidatePath } from 'next/cache';
import { z } from 'zod';
import { getDb } from '@/lib/db/client';
import { blockCase, unblock } from '@/lib/domain/admin/blocklist';
import { decideCase } from '@/lib/domain/admin/decide';
import { eraseCase } from '@/lib/domain/admin/erase';
import { formAction } from './form';

const uuid = z.string().regex(/^[0-9a-f-]{36}$/i, 'Not a verification id.');

const decideForm = z.object({
  verification_id: uuid,
  status: z.enum(['approved', 'declined', 'resubmission_requested'], 'Choose a decision.'),
  reason: z.string().max(64).optional(),
  note: z.string().max(2000).optional(),
  /** The case to open next (the queue's next one when the page was shown). */
  next_case: z.union([uuid, z.literal('')]).optional(),
  queue: z.string().max(300).optional(),
});

export const decideAction = formAction(decideForm, async (f, actor) => {
  const decision = { status: f.status, ...(f.reason ? { reason: f.reason } : {}), ...(f.note ? { note: f.note } : {}) };
  await decideCase(getDb(), actor, { verificationId: f.verification_id, decision });
  const done = new URLSearchParams({
    decided: f.verification_id,
    status: f.status,
    ...(f.reason && f.status !== 'approved' ? { reason: f.reason } : {}),
  });
  return {
    redirect: f.next_case
      ? `/admin/verifications/${f.next_case}?${done}`
      : `/admin/queue?${new URLSearchParams(f.queue ?? '')}&${done}`,
  };
});

const blockForm = z.object({ verification_id: uuid, note: z.string().max(2000).optional() });

export const blockAction = formAction(blockForm, async (f, actor) => {
  await blockCase(getDb(), actor, { verificationId: f.verification_id, note: f.note });
  revalidatePath(`/admin/verifications/${f.verification_id}`);
  return {
    ok: true,
    message: 'Added to the blocklist: a later submission with this face is declined (blocklist_match).',
  };
});

const unblockForm = z.object({ entry_id: z.string().regex(/^blk_[0-9a-z]{26}$/, 'Not a blocklist entry.') });

export const unblockAction = formAction(unblockForm, async (f, actor) => {
  const r = await unblock(getDb(), actor, { entryId: f.entry_id });
  revalidatePath('/admin/blocklist');
  revalidatePath(`/admin/verifications/${r.verificationId}`);
  return { ok: true, message: 'Removed from the blocklist.' };
});

const eraseForm = z.object({ verification_id: uuid, confirm: z.literal('erase', 'Type erase to confirm.') });

export const eraseAction = formAction(eraseForm, async (f, actor) => {
  const r = await eraseCase(getDb(), actor, { verificationId: f.verification_id });
  revalidatePath(`/admin/verifications/${f.verification_id}`);
  return {
    ok: true,
    message: `Erased: its photos, faces and personal fields are gone. Receipt ${r.receipt.receipt.id}, signed by ${r.receipt.signature.kid}.`,
  };
});

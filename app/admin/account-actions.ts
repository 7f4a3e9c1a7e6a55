'use server';
/** Server actions of the account page: second factor, password, sign out everywhere (zod, then lib/domain/admin). */
import { revalidatePath } from 'next/cache';
import { redirect } from 'next/navigation';
import { z } from 'zod';
import { getDb } from '@/lib/db/client';
import { requireSession } from '@/app/admin/_auth/current';
import {
  beginTotpEnrolment,
  confirmTotpEnrolment,
  disableTotp,
  regenerateRecoveryCodes,
} from '@/lib/domain/admin/auth/two-factor';
import { changeOwnPassword, signOutEverywhere } from '@/lib/domain/admin/users';
import { signOut } from '@/app/admin/_auth/nextauth';
import type { RecoveryState } from '@/components/admin/form-state';
import { formAction } from './form';

const codeForm = z.object({ code: z.string().trim().min(1, 'Enter the code from your app.').max(40) });

export async function beginEnrolAction(): Promise<void> {
  const s = await requireSession({ allowEnrol: true });
  await beginTotpEnrolment(getDb(), s.actor);
  revalidatePath('/admin/account');
}

export const confirmEnrolAction = formAction<typeof codeForm, RecoveryState>(
  codeForm,
  async (f, actor) => {
    const { recoveryCodes } = await confirmTotpEnrolment(getDb(), actor, f.code);
    return {
      ok: true,
      message: 'Two-factor authentication is on. Your other browsers were signed out.',
      recoveryCodes,
    };
  },
  { caller: 'enrolling' },
);

export const regenerateCodesAction = formAction<typeof codeForm, RecoveryState>(codeForm, async (f, actor) => {
  const { recoveryCodes } = await regenerateRecoveryCodes(getDb(), actor, f.code);
  return { ok: true, message: 'New recovery codes: the old ones no longer work.', recoveryCodes };
});

export const disableTotpAction = formAction(codeForm, async (f, actor) => {
  await disableTotp(getDb(), actor, f.code);
  revalidatePath('/admin/account');
  return { ok: true, message: 'Two-factor authentication is off.' };
});

const passwordForm = z
  .object({
    current: z.string().min(1, 'Enter your current password.').max(200),
    next: z.string().min(12, 'At least 12 characters.').max(200),
    confirm: z.string().max(200),
  })
  .refine((v) => v.next === v.confirm, { message: 'The two new passwords differ.', path: ['confirm'] });

export const changePasswordAction = formAction(passwordForm, async (f, actor) => {
  const r = await changeOwnPassword(getDb(), {
    userId: actor.userId,
    sessionId: actor.sessionId,
    current: f.current,
    next: f.next,
  });
  revalidatePath('/admin/account');
  return {
    ok: true,
    message: `Password changed. ${r.sessions_ended} other session${r.sessions_ended === 1 ? '' : 's'} signed out.`,
  };
});

export async function signOutEverywhereAction(): Promise<void> {
  const s = await requireSession({ allowEnrol: true });
  await signOutEverywhere(getDb(), { email: s.actor.email, actor: `admin:${s.actor.userId}` });
  await signOut({ redirectTo: '/admin/sign-in' });
  redirect('/admin/sign-in');
}

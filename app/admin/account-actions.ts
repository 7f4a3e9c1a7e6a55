'use server';
/** Server actions of the account page: second factor, password, sign out everywhere (zod, then lib/domain/admin). */
import { revalidatePath } from 'next/cache';
import { redirect } from 'next/navigation';
import { z } from 'zod';
import { getDb } from '@/db/client';
import { requireSession } from '@/lib/domain/admin/auth/current';
import { beginTotpEnrolment, confirmTotpEnrolment, disableTotp, regenerateRecoveryCodes } from '@/lib/domain/admin/auth/two-factor';
import { changeOwnPassword, signOutEverywhere } from '@/lib/domain/admin/users';
import { signOut } from '@/lib/domain/admin/auth/nextauth';
import { asFormState, formInput, type FormState } from './form';

const codeForm = z.object({ code: z.string().trim().min(1, 'Enter the code from your app.').max(40) });

export async function beginEnrolAction(): Promise<void> {
  const s = await requireSession({ allowEnrol: true });
  await beginTotpEnrolment(getDb(), s.actor);
  revalidatePath('/admin/account');
}

export type RecoveryState = (FormState & { recoveryCodes?: string[] }) | undefined;

export async function confirmEnrolAction(_: RecoveryState, form: FormData): Promise<RecoveryState> {
  const s = await requireSession({ allowEnrol: true });
  try {
    const f = formInput(codeForm, form);
    const { recoveryCodes } = await confirmTotpEnrolment(getDb(), s.actor, f.code);
    return { ok: true, message: 'Two-factor authentication is on. Your other browsers were signed out.', recoveryCodes };
  } catch (e) {
    return asFormState(e);
  }
}

export async function regenerateCodesAction(_: RecoveryState, form: FormData): Promise<RecoveryState> {
  const s = await requireSession();
  try {
    const f = formInput(codeForm, form);
    const { recoveryCodes } = await regenerateRecoveryCodes(getDb(), s.actor, f.code);
    return { ok: true, message: 'New recovery codes: the old ones no longer work.', recoveryCodes };
  } catch (e) {
    return asFormState(e);
  }
}

export async function disableTotpAction(_: FormState, form: FormData): Promise<FormState> {
  const s = await requireSession();
  try {
    await disableTotp(getDb(), s.actor, formInput(codeForm, form).code);
  } catch (e) {
    return asFormState(e);
  }
  revalidatePath('/admin/account');
  return { ok: true, message: 'Two-factor authentication is off.' };
}

const passwordForm = z
  .object({ current: z.string().min(1, 'Enter your current password.').max(200), next: z.string().min(12, 'At least 12 characters.').max(200), confirm: z.string().max(200) })
  .refine((v) => v.next === v.confirm, { message: 'The two new passwords differ.', path: ['confirm'] });

export async function changePasswordAction(_: FormState, form: FormData): Promise<FormState> {
  const s = await requireSession();
  try {
    const f = formInput(passwordForm, form);
    const r = await changeOwnPassword(getDb(), { userId: s.actor.userId, sessionId: s.actor.sessionId, current: f.current, next: f.next });
    revalidatePath('/admin/account');
    return { ok: true, message: `Password changed. ${r.sessions_ended} other session${r.sessions_ended === 1 ? '' : 's'} signed out.` };
  } catch (e) {
    return asFormState(e);
  }
}

export async function signOutEverywhereAction(): Promise<void> {
  const s = await requireSession({ allowEnrol: true });
  await signOutEverywhere(getDb(), { email: s.actor.email, actor: `admin:${s.actor.userId}` });
  await signOut({ redirectTo: '/admin/sign-in' });
  redirect('/admin/sign-in');
}

'use server';
/** Server actions of signing in and out (lib/domain/admin/auth does the checking; Auth.js sets the cookie). */
import { redirect } from 'next/navigation';
import { AuthError } from 'next-auth';
import { z } from 'zod';
import { getDb } from '@/lib/db/client';
import { currentSession, safeNext } from '@/app/admin/_auth/current';
import { requestClient, signIn, signOut } from '@/app/admin/_auth/nextauth';
import { passwordStep, secondFactorStep } from '@/lib/domain/admin/auth/sign-in';
import { acceptInvite, adminIdByEmail, openInvite } from '@/lib/domain/admin/members';
import { signOutSession } from '@/lib/domain/admin/users';
import type { FormState } from '@/components/admin/form-state';
import { asFormState, storableForm } from './form';

const waitText = (s = 60) => (s >= 90 ? `${Math.ceil(s / 60)} minutes` : s > 60 ? '2 minutes' : 'a minute');

const passwordForm = z.object({
  email: z.string().max(320).default(''),
  password: z.string().max(200).default(''),
  next: z.string().max(2000).optional(),
});

export async function signInWithPassword(_: FormState, form: FormData): Promise<FormState> {
  // Text no account can have (a NUL, an unpaired surrogate): the answer of a wrong password, without a lookup.
  if (!storableForm(form)) return { ok: false, message: 'The email or password is not right.', values: { email: '' } };
  const f = passwordForm.safeParse({
    email: form.get('email') ?? undefined,
    password: form.get('password') ?? undefined,
    next: form.get('next') ?? undefined,
  });
  const input = f.success ? f.data : { email: '', password: '', next: undefined };
  const r = await passwordStep(getDb(), {
    email: input.email,
    password: input.password,
    ...(await requestClient()),
    now: new Date(),
  });
  const values = { email: input.email };
  if (!r.ok) {
    return r.error === 'throttled'
      ? { ok: false, message: `Too many attempts. Try again in ${waitText(r.retryAfterSeconds)}.`, values }
      : { ok: false, message: 'The email or password is not right.', values };
  }
  const next = safeNext(input.next);
  const redirectTo =
    r.stage === 'second_factor'
      ? `/admin/sign-in/code?next=${encodeURIComponent(next)}`
      : r.stage === 'enrol'
        ? '/admin/account'
        : next;
  try {
    await signIn('ticket', { ticket: r.ticket, redirectTo });
  } catch (e) {
    if (e instanceof AuthError) return { ok: false, message: 'Signing in did not complete. Try again.', values };
    throw e; // the redirect
  }
  return undefined;
}

const codeForm = z.object({ code: z.string().max(40).default(''), next: z.string().max(2000).optional() });

export async function signInWithCode(_: FormState, form: FormData): Promise<FormState> {
  const s = await currentSession();
  if (!s || s.stage !== 'second_factor') redirect('/admin/sign-in');
  if (!storableForm(form))
    return { ok: false, message: 'That code is not right. Use the newest code from your app, or a recovery code.' };
  const f = codeForm.safeParse({ code: form.get('code') ?? undefined, next: form.get('next') ?? undefined });
  const input = f.success ? f.data : { code: '', next: undefined };
  const r = await secondFactorStep(getDb(), {
    sessionId: s.actor.sessionId,
    code: input.code,
    ...(await requestClient()),
    now: new Date(),
  });
  if (!r.ok) {
    return r.error === 'throttled'
      ? { ok: false, message: `Too many attempts. Try again in ${waitText(r.retryAfterSeconds)}.` }
      : { ok: false, message: 'That code is not right. Use the newest code from your app, or a recovery code.' };
  }
  redirect(safeNext(input.next));
}

export async function signInWithSso(form: FormData): Promise<void> {
  await signIn('oidc', { redirectTo: safeNext(form.get('next')) });
}

export async function signOutAction(): Promise<void> {
  const s = await currentSession();
  if (s) {
    await signOutSession(getDb(), { userId: s.actor.userId, sessionId: s.actor.sessionId });
  }
  await signOut({ redirectTo: '/admin/sign-in' });
}

const inviteForm = z.object({
  token: z.string().max(200).default(''),
  password: z.string().max(200).default(''),
  password_confirm: z.string().max(200).optional(),
});

/**
 * Accepting an invitation (/admin/invite/{token}): a new admin chooses a password; someone with an account
 * gives its password (the ordinary, throttled sign-in step). Either way they are signed in as a member.
 */
export async function acceptInviteAction(_: FormState, form: FormData): Promise<FormState> {
  const f = inviteForm.safeParse({
    token: form.get('token') ?? undefined,
    password: form.get('password') ?? undefined,
    password_confirm: form.get('password_confirm') ?? undefined,
  });
  if (!f.success || !storableForm(form)) return { ok: false, message: 'The form has invalid fields.' };
  const db = getDb();
  const now = new Date();
  const inv = await openInvite(db, f.data.token, now);
  if (!inv)
    return { ok: false, message: 'This invitation link has been used, withdrawn or has expired. Ask for a new one.' };
  let step;
  try {
    if (inv.existingAccount) {
      step = await passwordStep(db, { email: inv.email, password: f.data.password, ...(await requestClient()), now });
      if (!step.ok)
        return {
          ok: false,
          message:
            step.error === 'throttled'
              ? `Too many attempts. Try again in ${waitText(step.retryAfterSeconds)}.`
              : 'That is not the password of this account.',
        };
      await acceptInvite(db, { token: f.data.token, existingUserId: (await adminIdByEmail(db, inv.email))! }, now);
    } else {
      if (f.data.password !== f.data.password_confirm)
        return { ok: false, message: 'The two passwords differ.', fields: { password_confirm: ['Not the same.'] } };
      await acceptInvite(db, { token: f.data.token, password: f.data.password }, now);
      step = await passwordStep(db, {
        email: inv.email,
        password: f.data.password,
        ...(await requestClient()),
        now: new Date(),
      });
      if (!step.ok) return { ok: false, message: 'Your account is ready: sign in.' };
    }
  } catch (e) {
    return asFormState(e);
  }
  const redirectTo =
    step.stage === 'second_factor' ? '/admin/sign-in/code' : step.stage === 'enrol' ? '/admin/account' : '/admin/queue';
  try {
    await signIn('ticket', { ticket: step.ticket, redirectTo });
  } catch (e) {
    if (e instanceof AuthError)
      return { ok: false, message: 'Your account is ready, but signing in did not complete: sign in.' };
    throw e; // the redirect
  }
  return undefined;
}

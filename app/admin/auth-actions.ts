'use server';
/** Server actions of signing in and out (lib/admin/auth does the checking; Auth.js sets the cookie). */
import { redirect } from 'next/navigation';
import { AuthError } from 'next-auth';
import { z } from 'zod';
import { getDb } from '@/db/client';
import { audit } from '@/lib/audit';
import { actorId } from '@/lib/admin/access';
import { currentSession, safeNext } from '@/lib/admin/auth/current';
import { requestClient, signIn, signOut } from '@/lib/admin/auth/nextauth';
import { revokeSession } from '@/lib/admin/auth/sessions';
import { passwordStep, secondFactorStep } from '@/lib/admin/auth/sign-in';
import type { FormState } from './form';

const waitText = (s = 60) => (s >= 90 ? `${Math.ceil(s / 60)} minutes` : s > 60 ? '2 minutes' : 'a minute');

const passwordForm = z.object({ email: z.string().max(320).default(''), password: z.string().max(200).default(''), next: z.string().max(2000).optional() });

export async function signInWithPassword(_: FormState, form: FormData): Promise<FormState> {
  const f = passwordForm.safeParse({ email: form.get('email') ?? undefined, password: form.get('password') ?? undefined, next: form.get('next') ?? undefined });
  const input = f.success ? f.data : { email: '', password: '', next: undefined };
  const r = await passwordStep(getDb(), { email: input.email, password: input.password, ...(await requestClient()), now: new Date() });
  const values = { email: input.email };
  if (!r.ok) {
    return r.error === 'throttled'
      ? { ok: false, message: `Too many attempts. Try again in ${waitText(r.retryAfterSeconds)}.`, values }
      : { ok: false, message: 'The email or password is not right.', values };
  }
  const next = safeNext(input.next);
  const redirectTo = r.stage === 'second_factor' ? `/admin/sign-in/code?next=${encodeURIComponent(next)}` : r.stage === 'enrol' ? '/admin/account' : next;
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
  const f = codeForm.safeParse({ code: form.get('code') ?? undefined, next: form.get('next') ?? undefined });
  const input = f.success ? f.data : { code: '', next: undefined };
  const r = await secondFactorStep(getDb(), { sessionId: s.actor.sessionId, code: input.code, ...(await requestClient()), now: new Date() });
  if (!r.ok) {
    return r.error === 'throttled' ? { ok: false, message: `Too many attempts. Try again in ${waitText(r.retryAfterSeconds)}.` } : { ok: false, message: 'That code is not right. Use the newest code from your app, or a recovery code.' };
  }
  redirect(safeNext(input.next));
}

export async function signInWithSso(form: FormData): Promise<void> {
  await signIn('oidc', { redirectTo: safeNext(form.get('next')) });
}

export async function signOutAction(): Promise<void> {
  const s = await currentSession();
  if (s) {
    await revokeSession(getDb(), s.actor.sessionId, 'signed_out');
    await audit(getDb(), { actor: actorId(s.actor), action: 'admin.signed_out', data: { session: s.actor.sessionId } });
  }
  await signOut({ redirectTo: '/admin/sign-in' });
}

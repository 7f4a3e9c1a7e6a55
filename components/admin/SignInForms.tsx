'use client';
/** The sign-in forms: email and password, then (when due) the second-factor code. */
import { useActionState } from 'react';
import type { FormState } from '@/app/admin/form';
import { buttonClass, inputClass, labelClass, Notice } from './ui';

type Action = (s: FormState, f: FormData) => Promise<FormState>;

export function PasswordForm(props: { action: Action; next: string }) {
  const [state, act, pending] = useActionState(props.action, undefined);
  return (
    <form action={act} className="space-y-4" noValidate>
      {state?.message ? <Notice tone="error" id="sign-in-error">{state.message}</Notice> : null}
      <input type="hidden" name="next" value={props.next} />
      <div>
        <label htmlFor="email" className={labelClass}>Email</label>
        <input id="email" name="email" type="email" autoComplete="username" required defaultValue={state?.values?.email ?? ''} className={inputClass} aria-describedby={state?.message ? 'sign-in-error' : undefined} />
      </div>
      <div>
        <label htmlFor="password" className={labelClass}>Password</label>
        <input id="password" name="password" type="password" autoComplete="current-password" required className={inputClass} />
      </div>
      <button type="submit" disabled={pending} className={`${buttonClass.primary} w-full`}>
        {pending ? 'Signing in…' : 'Sign in'}
      </button>
    </form>
  );
}

export function CodeForm(props: { action: Action; next: string }) {
  const [state, act, pending] = useActionState(props.action, undefined);
  return (
    <form action={act} className="space-y-4" noValidate>
      {state?.message ? <Notice tone="error" id="code-error">{state.message}</Notice> : null}
      <input type="hidden" name="next" value={props.next} />
      <div>
        <label htmlFor="code" className={labelClass}>Code</label>
        <input id="code" name="code" autoComplete="one-time-code" autoFocus required className={`${inputClass} font-mono tracking-widest`} aria-describedby="code-help" />
        <p id="code-help" className="mt-1 text-sm text-neutral-700">
          The 6-digit code from your authenticator app, or one of your recovery codes (each works once).
        </p>
      </div>
      <button type="submit" disabled={pending} className={`${buttonClass.primary} w-full`}>
        {pending ? 'Checking…' : 'Continue'}
      </button>
    </form>
  );
}

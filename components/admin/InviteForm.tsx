'use client';
/** Accepting an invitation: choose a password (a new admin), or give the password of the account the email has. */
import { useActionState } from 'react';
import type { FormState } from '@/app/admin/form';
import { buttonClass, inputClass, labelClass, Notice } from './ui';

type Action = (s: FormState, f: FormData) => Promise<FormState>;

export function AcceptInviteForm(props: { action: Action; token: string; email: string; existing: boolean }) {
  const [state, act, pending] = useActionState(props.action, undefined);
  return (
    <form action={act} className="space-y-4">
      {state?.message ? <Notice tone="error" id="invite-error">{state.message}</Notice> : null}
      <input type="hidden" name="token" value={props.token} />
      <div>
        <label htmlFor="invite-email" className={labelClass}>Email</label>
        <input id="invite-email" name="email" type="email" autoComplete="username" readOnly value={props.email} className={`${inputClass} bg-neutral-100`} />
      </div>
      <div>
        <label htmlFor="password" className={labelClass}>{props.existing ? 'Your password' : 'Choose a password'}</label>
        <input id="password" name="password" type="password" required minLength={props.existing ? 1 : 12} autoComplete={props.existing ? 'current-password' : 'new-password'} className={inputClass} aria-describedby={props.existing ? undefined : 'password-help'} />
        {props.existing ? null : <p id="password-help" className="mt-1 text-sm text-neutral-700">At least 12 characters.</p>}
      </div>
      {props.existing ? null : (
        <div>
          <label htmlFor="password_confirm" className={labelClass}>The same password again</label>
          <input id="password_confirm" name="password_confirm" type="password" required minLength={12} autoComplete="new-password" className={inputClass} />
        </div>
      )}
      <button type="submit" disabled={pending} className={`${buttonClass.primary} w-full`}>
        {pending ? 'Joining…' : props.existing ? 'Join and sign in' : 'Create my account'}
      </button>
    </form>
  );
}

'use client';
/** The sign-in forms: email and password, then (when due) the second-factor code. */
import { useActionState } from 'react';
import type { FormAction } from './form-state';
import { Button, Input, Label, Notice } from './ui';

export function PasswordForm(props: { action: FormAction; next: string }) {
  const [state, act, pending] = useActionState(props.action, undefined);
  return (
    <form action={act} className="space-y-4" noValidate>
      {state?.message ? (
        <Notice tone="error" id="sign-in-error">
          {state.message}
        </Notice>
      ) : null}
      <input type="hidden" name="next" value={props.next} />
      <div>
        <Label htmlFor="email">Email</Label>
        <Input
          id="email"
          name="email"
          type="email"
          autoComplete="username"
          required
          defaultValue={state?.values?.email ?? ''}
          aria-describedby={state?.message ? 'sign-in-error' : undefined}
        />
      </div>
      <div>
        <Label htmlFor="password">Password</Label>
        <Input id="password" name="password" type="password" autoComplete="current-password" required />
      </div>
      <Button type="submit" disabled={pending} className="w-full">
        {pending ? 'Signing in…' : 'Sign in'}
      </Button>
    </form>
  );
}

export function CodeForm(props: { action: FormAction; next: string }) {
  const [state, act, pending] = useActionState(props.action, undefined);
  return (
    <form action={act} className="space-y-4" noValidate>
      {state?.message ? (
        <Notice tone="error" id="code-error">
          {state.message}
        </Notice>
      ) : null}
      <input type="hidden" name="next" value={props.next} />
      <div>
        <Label htmlFor="code">Code</Label>
        <Input
          id="code"
          name="code"
          autoComplete="one-time-code"
          autoFocus
          required
          font="code"
          aria-describedby="code-help"
        />
        <p id="code-help" className="mt-1 text-sm text-neutral-700">
          The 6-digit code from your authenticator app, or one of your recovery codes (each works once).
        </p>
      </div>
      <Button type="submit" disabled={pending} className="w-full">
        {pending ? 'Checking…' : 'Continue'}
      </Button>
    </form>
  );
}

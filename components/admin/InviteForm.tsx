'use client';
/** Accepting an invitation: choose a password (a new admin), or give the password of the account the email has. */
import { useActionState } from 'react';
import type { FormAction } from './form-state';
import { Button, Input, Label, Notice } from './ui';

export function AcceptInviteForm(props: { action: FormAction; token: string; email: string; existing: boolean }) {
  const [state, act, pending] = useActionState(props.action, undefined);
  return (
    <form action={act} className="space-y-4">
      {state?.message ? (
        <Notice tone="error" id="invite-error">
          {state.message}
        </Notice>
      ) : null}
      <input type="hidden" name="token" value={props.token} />
      <div>
        <Label htmlFor="invite-email">Email</Label>
        <Input id="invite-email" name="email" type="email" autoComplete="username" readOnly value={props.email} />
      </div>
      <div>
        <Label htmlFor="password">{props.existing ? 'Your password' : 'Choose a password'}</Label>
        <Input
          id="password"
          name="password"
          type="password"
          required
          minLength={props.existing ? 1 : 12}
          autoComplete={props.existing ? 'current-password' : 'new-password'}
          aria-describedby={props.existing ? undefined : 'password-help'}
        />
        {props.existing ? null : (
          <p id="password-help" className="mt-1 text-sm text-neutral-700">
            At least 12 characters.
          </p>
        )}
      </div>
      {props.existing ? null : (
        <div>
          <Label htmlFor="password_confirm">The same password again</Label>
          <Input
            id="password_confirm"
            name="password_confirm"
            type="password"
            required
            minLength={12}
            autoComplete="new-password"
          />
        </div>
      )}
      <Button type="submit" disabled={pending} className="w-full">
        {pending ? 'Joining…' : props.existing ? 'Join and sign in' : 'Create my account'}
      </Button>
    </form>
  );
}

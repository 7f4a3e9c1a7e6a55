'use client';
/** The account page's forms (each shows the server's answer in place). */
import { useActionState } from 'react';
import { INVALID_FORM, type FormAction, type FormState, type RecoveryState } from './form-state';
import { Box, Button, buttonClass, Input, Label, Notice } from './ui';

function Answer({ state }: { state: FormState }) {
  if (!state?.message) return null;
  // A form-level "invalid fields" says nothing by itself: show what is wrong with the fields instead.
  const fields = state.fields ? Object.values(state.fields).flat().join(' ') : '';
  return (
    <Notice tone={state.ok ? 'success' : 'error'}>
      {fields && !state.ok && state.message === INVALID_FORM ? fields : state.message}
    </Notice>
  );
}

function CodeInput({ id, label }: { id: string; label: string }) {
  return (
    <div>
      <Label htmlFor={id}>{label}</Label>
      <Input
        id={id}
        name="code"
        autoComplete="one-time-code"
        inputMode="numeric"
        required
        font="code"
        className="max-w-48"
      />
    </div>
  );
}

export function RecoveryCodes({ codes }: { codes: string[] }) {
  return (
    <Box tone="warning" data-testid="recovery-codes">
      <p className="text-sm font-semibold text-amber-950">
        Recovery codes: shown this once. Keep them somewhere safe; each signs you in once if you lose your phone.
      </p>
      <ul className="mt-2 grid grid-cols-2 gap-1 font-mono text-sm text-neutral-950 sm:grid-cols-5">
        {codes.map((c) => (
          <li key={c}>{c}</li>
        ))}
      </ul>
    </Box>
  );
}

export function ConfirmEnrolForm({ action }: { action: FormAction<RecoveryState> }) {
  const [state, act, pending] = useActionState(action, undefined);
  if (state?.ok && state.recoveryCodes) {
    return (
      <div className="space-y-3">
        <Answer state={state} />
        <RecoveryCodes codes={state.recoveryCodes} />
        <a href="/admin/queue" className={buttonClass.primary}>
          I have saved them: continue
        </a>
      </div>
    );
  }
  return (
    <form action={act} className="space-y-3">
      <Answer state={state} />
      <CodeInput id="enrol-code" label="Code from the app" />
      <Button type="submit" disabled={pending}>
        {pending ? 'Checking…' : 'Turn on'}
      </Button>
    </form>
  );
}

export function RegenerateForm({ action }: { action: FormAction<RecoveryState> }) {
  const [state, act, pending] = useActionState(action, undefined);
  return (
    <form action={act} className="space-y-3">
      <Answer state={state} />
      {state?.ok && state.recoveryCodes ? <RecoveryCodes codes={state.recoveryCodes} /> : null}
      <CodeInput id="regen-code" label="Code from the app" />
      <Button type="submit" disabled={pending} variant="secondary">
        New recovery codes
      </Button>
    </form>
  );
}

export function DisableForm({ action }: { action: FormAction }) {
  const [state, act, pending] = useActionState(action, undefined);
  return (
    <form action={act} className="space-y-3">
      <Answer state={state} />
      <CodeInput id="disable-code" label="Code from the app" />
      <Button type="submit" disabled={pending} variant="danger">
        Turn off two-factor authentication
      </Button>
    </form>
  );
}

export function PasswordForm({ action }: { action: FormAction }) {
  const [state, act, pending] = useActionState(action, undefined);
  return (
    <form action={act} className="grid max-w-md gap-3">
      <Answer state={state} />
      <div>
        <Label htmlFor="current">Current password</Label>
        <Input id="current" name="current" type="password" autoComplete="current-password" required />
      </div>
      <div>
        <Label htmlFor="next">New password (at least 12 characters)</Label>
        <Input id="next" name="next" type="password" autoComplete="new-password" minLength={12} required />
      </div>
      <div>
        <Label htmlFor="confirm">New password again</Label>
        <Input id="confirm" name="confirm" type="password" autoComplete="new-password" required />
      </div>
      <div>
        <Button type="submit" disabled={pending} variant="secondary">
          Change password
        </Button>
      </div>
    </form>
  );
}

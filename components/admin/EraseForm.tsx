'use client';
/** Erase a case's data now (owners and operators): the person's photos, faces and personal fields; typed confirmation. */
import { useActionState, useState } from 'react';
import type { FormAction } from './form-state';
import { boxVariants, Button, cn, Input, Label, Notice } from './ui';

export function EraseForm(props: { action: FormAction; verificationId: string; inProgress: boolean }) {
  const [state, act, pending] = useActionState(props.action, undefined);
  const [confirming, setConfirming] = useState(false);
  if (state?.ok) return <Notice tone="success">{state.message}</Notice>;
  return (
    <div>
      {state?.message ? (
        <Notice tone="error">
          {state.message}
          {state.fields?.confirm ? ` ${state.fields.confirm.join(' ')}` : ''}
        </Notice>
      ) : null}
      {!confirming ? (
        <Button type="button" variant="secondary" onClick={() => setConfirming(true)}>
          Erase this person’s data now…
        </Button>
      ) : (
        <form action={act} className={cn(boxVariants({ tone: 'danger' }), 'space-y-3')}>
          <input type="hidden" name="verification_id" value={props.verificationId} />
          <p className="text-sm text-red-950">
            The photos, their face measurements, the face in the duplicate search, the personal fields of the result and
            the metadata are erased for good, and its encryption key destroyed (backups included). The decision, the
            history and blocklist entries stay. A signed receipt is kept.
            {props.inProgress ? ' The case is still open: it becomes abandoned.' : ''}
          </p>
          <div>
            <Label htmlFor="erase-confirm">
              Type <span className="font-mono">erase</span> to confirm
            </Label>
            <Input id="erase-confirm" name="confirm" autoComplete="off" />
          </div>
          <div className="flex flex-wrap gap-2">
            <Button type="submit" disabled={pending} variant="danger">
              {pending ? 'Erasing…' : 'Erase data'}
            </Button>
            <Button type="button" variant="secondary" onClick={() => setConfirming(false)}>
              Cancel
            </Button>
          </div>
        </form>
      )}
    </div>
  );
}

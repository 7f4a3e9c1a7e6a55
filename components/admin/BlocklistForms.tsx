'use client';
/** Add a case's face to the blocklist, or remove an entry: each asks for confirmation first. */
import { useActionState, useState } from 'react';
import type { FormAction } from './form-state';
import { boxVariants, Button, cn, Label, layout, Notice, Textarea } from './ui';

export function BlockForm(props: { action: FormAction; verificationId: string }) {
  const [state, act, pending] = useActionState(props.action, undefined);
  const [confirming, setConfirming] = useState(false);
  if (state?.ok) return <Notice tone="success">{state.message}</Notice>;
  return (
    <div>
      {state?.message ? <Notice tone="error">{state.message}</Notice> : null}
      {!confirming ? (
        <Button type="button" variant="secondary" onClick={() => setConfirming(true)}>
          Add this face to the blocklist…
        </Button>
      ) : (
        <form action={act} className={cn(boxVariants({ tone: 'danger' }), 'space-y-3')}>
          <input type="hidden" name="verification_id" value={props.verificationId} />
          <p className="text-sm text-red-950">
            Any later submission in this workspace whose selfie matches this face will be declined with{' '}
            <code>blocklist_match</code>.
          </p>
          <div>
            <Label htmlFor="block-note">Why (kept in the audit log)</Label>
            <Textarea id="block-note" name="note" rows={2} maxLength={2000} />
          </div>
          <div className="flex flex-wrap gap-2">
            <Button type="submit" disabled={pending} variant="danger">
              {pending ? 'Adding…' : 'Add to blocklist'}
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

export function UnblockForm(props: { action: FormAction; entryId: string; label: string }) {
  const [state, act, pending] = useActionState(props.action, undefined);
  const [confirming, setConfirming] = useState(false);
  if (state?.ok)
    return (
      <span className="text-sm text-green-900" role="status">
        {state.message}
      </span>
    );
  return (
    <div className={layout.row}>
      {state?.message ? (
        <span role="alert" className="text-sm text-red-900">
          {state.message}
        </span>
      ) : null}
      {!confirming ? (
        <Button
          type="button"
          variant="secondary"
          onClick={() => setConfirming(true)}
          aria-label={`Remove ${props.label} from the blocklist`}
        >
          Remove…
        </Button>
      ) : (
        <form action={act} className={layout.row}>
          <input type="hidden" name="entry_id" value={props.entryId} />
          <span className="text-sm text-neutral-900">Later submissions will no longer be matched against it.</span>
          <Button type="submit" disabled={pending} variant="danger">
            {pending ? 'Removing…' : 'Remove'}
          </Button>
          <Button type="button" variant="secondary" onClick={() => setConfirming(false)}>
            Keep
          </Button>
        </form>
      )}
    </div>
  );
}

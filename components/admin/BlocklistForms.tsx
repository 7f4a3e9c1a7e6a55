'use client';
/** Add a case's face to the blocklist, or remove an entry: each asks for confirmation first. */
import { useActionState, useState } from 'react';
import type { FormState } from '@/app/admin/form';
import { buttonClass, inputClass, labelClass, Notice } from './ui';

type Action = (s: FormState, f: FormData) => Promise<FormState>;

export function BlockForm(props: { action: Action; verificationId: string }) {
  const [state, act, pending] = useActionState(props.action, undefined);
  const [confirming, setConfirming] = useState(false);
  if (state?.ok) return <Notice tone="success">{state.message}</Notice>;
  return (
    <div>
      {state?.message ? <Notice tone="error">{state.message}</Notice> : null}
      {!confirming ? (
        <button type="button" className={buttonClass.secondary} onClick={() => setConfirming(true)}>
          Add this face to the blocklist…
        </button>
      ) : (
        <form action={act} className="space-y-3 rounded-md border border-red-300 bg-red-50 p-3">
          <input type="hidden" name="verification_id" value={props.verificationId} />
          <p className="text-sm text-red-950">Any later submission in this workspace whose selfie matches this face will be declined with <code>blocklist_match</code>.</p>
          <div>
            <label htmlFor="block-note" className={labelClass}>Why (kept in the audit log)</label>
            <textarea id="block-note" name="note" rows={2} maxLength={2000} className={`${inputClass} py-2`} />
          </div>
          <div className="flex flex-wrap gap-2">
            <button type="submit" disabled={pending} className={buttonClass.danger}>{pending ? 'Adding…' : 'Add to blocklist'}</button>
            <button type="button" className={buttonClass.secondary} onClick={() => setConfirming(false)}>Cancel</button>
          </div>
        </form>
      )}
    </div>
  );
}

export function UnblockForm(props: { action: Action; entryId: string; label: string }) {
  const [state, act, pending] = useActionState(props.action, undefined);
  const [confirming, setConfirming] = useState(false);
  if (state?.ok) return <span className="text-sm text-green-900" role="status">{state.message}</span>;
  return (
    <div className="flex flex-wrap items-center gap-2">
      {state?.message ? <span role="alert" className="text-sm text-red-900">{state.message}</span> : null}
      {!confirming ? (
        <button type="button" className={buttonClass.secondary} onClick={() => setConfirming(true)} aria-label={`Remove ${props.label} from the blocklist`}>
          Remove…
        </button>
      ) : (
        <form action={act} className="flex flex-wrap items-center gap-2">
          <input type="hidden" name="entry_id" value={props.entryId} />
          <span className="text-sm text-neutral-900">Later submissions will no longer be matched against it.</span>
          <button type="submit" disabled={pending} className={buttonClass.danger}>{pending ? 'Removing…' : 'Remove'}</button>
          <button type="button" className={buttonClass.secondary} onClick={() => setConfirming(false)}>Keep</button>
        </form>
      )}
    </div>
  );
}

'use client';
/** Erase a case's data now (owners and operators): the person's photos, faces and personal fields; typed confirmation. */
import { useActionState, useState } from 'react';
import type { FormState } from '@/app/admin/form';
import { buttonClass, inputClass, labelClass, Notice } from './ui';

type Action = (s: FormState, f: FormData) => Promise<FormState>;

export function EraseForm(props: { action: Action; verificationId: string; inProgress: boolean }) {
  const [state, act, pending] = useActionState(props.action, undefined);
  const [confirming, setConfirming] = useState(false);
  if (state?.ok) return <Notice tone="success">{state.message}</Notice>;
  return (
    <div>
      {state?.message ? <Notice tone="error">{state.message}{state.fields?.confirm ? ` ${state.fields.confirm.join(' ')}` : ''}</Notice> : null}
      {!confirming ? (
        <button type="button" className={buttonClass.secondary} onClick={() => setConfirming(true)}>
          Erase this person’s data now…
        </button>
      ) : (
        <form action={act} className="space-y-3 rounded-md border border-red-300 bg-red-50 p-3">
          <input type="hidden" name="verification_id" value={props.verificationId} />
          <p className="text-sm text-red-950">
            The photos, their face measurements, the face in the duplicate search, the personal fields of the result and the
            metadata are erased for good, and its encryption key destroyed (backups included). The decision, the history and
            blocklist entries stay. A signed receipt is kept.{props.inProgress ? ' The case is still open: it becomes abandoned.' : ''}
          </p>
          <div>
            <label htmlFor="erase-confirm" className={labelClass}>Type <span className="font-mono">erase</span> to confirm</label>
            <input id="erase-confirm" name="confirm" autoComplete="off" className={inputClass} />
          </div>
          <div className="flex flex-wrap gap-2">
            <button type="submit" disabled={pending} className={buttonClass.danger}>{pending ? 'Erasing…' : 'Erase data'}</button>
            <button type="button" className={buttonClass.secondary} onClick={() => setConfirming(false)}>Cancel</button>
          </div>
        </form>
      )}
    </div>
  );
}

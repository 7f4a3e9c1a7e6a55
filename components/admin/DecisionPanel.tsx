'use client';
/**
 * The reviewer's decision: approve, decline with a reason, or (test mode) ask for a resubmission, each
 * confirmed in a dialog with an optional note for the audit log. Keyboard: a approve, d decline,
 * r resubmission (test), j next case, k previous case, ? the list of keys. When another reviewer decided
 * first, the server's answer says who and what.
 */
import { useActionState, useEffect, useRef, useState } from 'react';
import { useRouter } from 'next/navigation';
import type { FormAction } from './form-state';
import { Button, buttonClass, Kbd, Label, Notice, Select, Textarea } from './ui';

type Choice = 'approved' | 'declined' | 'resubmission_requested';
type Reason = { value: string; label: string };

const TITLES: Record<Choice, string> = {
  approved: 'Approve this case?',
  declined: 'Decline this case?',
  resubmission_requested: 'Ask for a resubmission?',
};

export function DecisionPanel(props: {
  action: FormAction;
  verificationId: string;
  testMode: boolean;
  canDecide: boolean;
  previous: string | null;
  next: string | null;
  queue: string;
  declineReasons: Reason[];
  resubmitReasons: Reason[];
}) {
  const [state, act, pending] = useActionState(props.action, undefined);
  const [open, setOpen] = useState<Choice | null>(null);
  const [help, setHelp] = useState(false);
  const dialog = useRef<HTMLDialogElement>(null);
  const root = useRef<HTMLDivElement>(null);
  const router = useRouter();

  useEffect(() => {
    const d = dialog.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.altKey || e.ctrlKey || e.metaKey || open) return;
      const t = e.target as HTMLElement | null;
      if (t && (t.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName))) return;
      const go = (id: string | null) => id && router.push(`/admin/verifications/${id}`);
      if (e.key === 'j') go(props.next);
      else if (e.key === 'k') go(props.previous);
      else if (e.key === '?') setHelp((h) => !h);
      else if (!props.canDecide) return;
      else if (e.key === 'a') setOpen('approved');
      else if (e.key === 'd') setOpen('declined');
      else if (e.key === 'r' && props.testMode) setOpen('resubmission_requested');
      else return;
      e.preventDefault();
    };
    document.addEventListener('keydown', onKey);
    // Marks the keys as live (tests wait for it: a key pressed before hydration does nothing).
    root.current?.setAttribute('data-keys-ready', '');
    return () => document.removeEventListener('keydown', onKey);
  }, [open, props.next, props.previous, props.canDecide, props.testMode, router]);

  const details = state?.details as
    { decided_by?: string; decided_status?: string; decided_reason?: string | null; decided_at?: string } | undefined;
  const reasons =
    open === 'declined' ? props.declineReasons : open === 'resubmission_requested' ? props.resubmitReasons : [];

  return (
    <div ref={root}>
      {state?.message ? (
        <Notice tone="error">
          <p className="font-semibold">{state.message}</p>
          {details?.decided_by ? (
            <p data-testid="decided-by">
              {details.decided_by} set it to {details.decided_status?.replace(/_/g, ' ')}
              {details.decided_reason ? ` (${details.decided_reason.replace(/_/g, ' ')})` : ''}
              {details.decided_at ? ` at ${details.decided_at.slice(0, 19).replace('T', ' ')} UTC` : ''}. Nothing was
              changed by you.
            </p>
          ) : null}
          <button
            type="button"
            onClick={() => router.refresh()}
            className="mt-1 font-semibold underline underline-offset-2"
          >
            Reload the case
          </button>
        </Notice>
      ) : null}
      {props.canDecide ? (
        <div className="flex flex-wrap gap-2">
          <Button type="button" variant="success" onClick={() => setOpen('approved')} aria-keyshortcuts="a">
            Approve
          </Button>
          <Button type="button" variant="danger" onClick={() => setOpen('declined')} aria-keyshortcuts="d">
            Decline…
          </Button>
          {props.testMode ? (
            <Button
              type="button"
              variant="secondary"
              onClick={() => setOpen('resubmission_requested')}
              aria-keyshortcuts="r"
            >
              Ask for resubmission…
            </Button>
          ) : null}
        </div>
      ) : (
        <p className="text-sm text-neutral-800">Your role in this workspace cannot decide cases.</p>
      )}
      <div className="mt-3 flex flex-wrap items-center gap-3 text-sm">
        {props.previous ? (
          <a href={`/admin/verifications/${props.previous}`} className={buttonClass.link} aria-keyshortcuts="k">
            ← Previous case
          </a>
        ) : null}
        {props.next ? (
          <a href={`/admin/verifications/${props.next}`} className={buttonClass.link} aria-keyshortcuts="j">
            Next case →
          </a>
        ) : null}
        <button
          type="button"
          className="text-neutral-800 underline underline-offset-2"
          onClick={() => setHelp((h) => !h)}
          aria-expanded={help}
        >
          Keyboard shortcuts
        </button>
      </div>
      {help ? (
        <ul
          className="mt-2 grid grid-cols-2 gap-1 rounded-md bg-neutral-100 p-3 text-sm text-neutral-900 sm:grid-cols-3"
          aria-label="Keyboard shortcuts"
        >
          <li>
            <Kbd>a</Kbd> approve
          </li>
          <li>
            <Kbd>d</Kbd> decline
          </li>
          {props.testMode ? (
            <li>
              <Kbd>r</Kbd> resubmission
            </li>
          ) : null}
          <li>
            <Kbd>j</Kbd> next case
          </li>
          <li>
            <Kbd>k</Kbd> previous case
          </li>
          <li>
            <Kbd>?</Kbd> this list
          </li>
        </ul>
      ) : null}

      <dialog
        ref={dialog}
        onClose={() => setOpen(null)}
        aria-labelledby="decision-dialog-title"
        className="m-auto w-[calc(100%-1.5rem)] max-w-md rounded-lg border border-neutral-300 p-0 shadow-xl backdrop:bg-neutral-950/50"
      >
        {open ? (
          <form
            action={(form) => {
              // The dialog closes as the decision is sent; an answer (an error: success navigates away) shows above.
              setOpen(null);
              act(form);
            }}
            className="space-y-4 p-5"
          >
            <h2 id="decision-dialog-title" className="text-lg font-bold text-neutral-950">
              {TITLES[open]}
            </h2>
            <input type="hidden" name="verification_id" value={props.verificationId} />
            <input type="hidden" name="status" value={open} />
            <input type="hidden" name="next_case" value={props.next ?? ''} />
            <input type="hidden" name="queue" value={props.queue} />
            {reasons.length ? (
              <div>
                <Label htmlFor="reason">Reason</Label>
                <Select id="reason" name="reason" required autoFocus defaultValue="">
                  <option value="" disabled>
                    Choose a reason
                  </option>
                  {reasons.map((r) => (
                    <option key={r.value} value={r.value}>
                      {r.label} ({r.value})
                    </option>
                  ))}
                </Select>
              </div>
            ) : (
              <p className="text-sm text-neutral-800">
                The integrator is told at once (webhook), and the decision cannot be undone.
              </p>
            )}
            <div>
              <Label htmlFor="note">
                Note for the audit log{' '}
                <span className="font-normal text-neutral-700">(optional, not sent to the integrator)</span>
              </Label>
              <Textarea id="note" name="note" rows={3} maxLength={2000} />
            </div>
            <div className="flex flex-wrap justify-end gap-2">
              <Button type="button" variant="secondary" onClick={() => setOpen(null)}>
                Cancel
              </Button>
              <button
                type="submit"
                disabled={pending}
                autoFocus={!reasons.length}
                className={
                  open === 'approved'
                    ? buttonClass.success
                    : open === 'declined'
                      ? buttonClass.danger
                      : buttonClass.primary
                }
              >
                {pending
                  ? 'Saving…'
                  : open === 'approved'
                    ? 'Approve'
                    : open === 'declined'
                      ? 'Decline'
                      : 'Ask for resubmission'}
              </button>
            </div>
          </form>
        ) : null}
      </dialog>
    </div>
  );
}

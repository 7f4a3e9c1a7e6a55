'use client';
/**
 * The forms of the owners' pages (issue 15). `ActionForm` posts one server action and shows its answer; the
 * forms that reveal a secret or an invitation link show it from the action's answer only, so it exists in
 * this browser tab's memory and nowhere else: not in the page, not after a reload.
 */
import { useActionState, useState, type ReactNode } from 'react';
import type { FormAction, FormState } from './form-state';
import { Box, Button, buttonClass, cn, Input, Label, layout, Notice, Select } from './ui';

export function CopyButton(props: { text: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <Button
      type="button"
      variant="secondary"
      onClick={async () => {
        await navigator.clipboard.writeText(props.text);
        setCopied(true);
      }}
    >
      {copied ? 'Copied' : (props.label ?? 'Copy')}
      <span className="sr-only" role="status">
        {copied ? 'Copied to the clipboard' : ''}
      </span>
    </Button>
  );
}

function Hidden(props: { fields: Record<string, string> }) {
  return (
    <>
      {Object.entries(props.fields).map(([k, v]) => (
        <input key={k} type="hidden" name={k} value={v} />
      ))}
    </>
  );
}

function Answer(props: { state: FormState; inline?: boolean }) {
  const s = props.state;
  if (!s?.message) return null;
  if (props.inline)
    return (
      <span role={s.ok ? 'status' : 'alert'} className={cn('text-sm', s.ok ? 'text-green-900' : 'text-red-900')}>
        {s.message}
      </span>
    );
  return <Notice tone={s.ok ? 'success' : 'error'}>{s.message}</Notice>;
}

/**
 * One server action behind a button (with an optional confirmation step first). `children` are the form's
 * fields; `hidden` its fixed values.
 */
export function ActionForm(props: {
  action: FormAction;
  hidden?: Record<string, string>;
  submit: string;
  pendingLabel?: string;
  tone?: keyof typeof buttonClass;
  children?: ReactNode;
  confirm?: { open: string; text: ReactNode; ariaLabel?: string };
  inline?: boolean;
  className?: string;
  testId?: string;
}) {
  const [state, act, pending] = useActionState(props.action, undefined);
  const [confirming, setConfirming] = useState(false);
  const form = (
    <form
      action={act}
      className={cn(props.inline ? layout.row : 'space-y-3', props.className)}
      data-testid={props.testId}
    >
      <Hidden fields={props.hidden ?? {}} />
      {props.confirm ? <p className="text-sm text-neutral-900">{props.confirm.text}</p> : null}
      {props.children}
      <div className="flex flex-wrap gap-2">
        <button type="submit" disabled={pending} className={buttonClass[props.tone ?? 'primary']}>
          {pending ? (props.pendingLabel ?? 'Working…') : props.submit}
        </button>
        {props.confirm ? (
          <Button type="button" variant="secondary" onClick={() => setConfirming(false)}>
            Cancel
          </Button>
        ) : null}
      </div>
    </form>
  );
  return (
    <div className={props.inline ? layout.row : undefined}>
      <Answer state={state} inline={props.inline} />
      {props.confirm && !confirming ? (
        <button
          type="button"
          className={buttonClass[props.tone === 'danger' ? 'secondary' : (props.tone ?? 'secondary')]}
          aria-label={props.confirm.ariaLabel}
          onClick={() => setConfirming(true)}
        >
          {props.confirm.open}
        </button>
      ) : (
        form
      )}
    </div>
  );
}

/** A secret shown once, with a copy button and the warning that it will not be shown again. */
function OnceSecret(props: { label: string; value: string; testId: string; heading?: string; copyLabel?: string }) {
  return (
    <Box tone="warning">
      <p className="text-sm font-semibold text-amber-950">
        {props.heading ?? `${props.label}: copy it now, it is not shown again.`}
      </p>
      <div className={cn('mt-2', layout.row)}>
        <code
          data-testid={props.testId}
          className="min-w-0 break-all rounded bg-white px-2 py-1 font-mono text-sm text-neutral-950 ring-1 ring-amber-300"
        >
          {props.value}
        </code>
        <CopyButton text={props.value} label={props.copyLabel ?? 'Copy secret'} />
      </div>
    </Box>
  );
}

export function CreateKeyForm(props: { action: FormAction; workspaceId: string; full: boolean }) {
  const [state, act, pending] = useActionState(props.action, undefined);
  const key = state?.ok ? (state.details?.key as { id: string; mode: string; secret: string } | undefined) : undefined;
  return (
    <div className="space-y-3">
      {state && !state.ok ? <Notice tone="error">{state.message}</Notice> : null}
      {key ? <OnceSecret label={`New ${key.mode} key ${key.id}`} value={key.secret} testId="new-secret" /> : null}
      <form action={act} className="flex flex-wrap items-end gap-3">
        <input type="hidden" name="workspace_id" value={props.workspaceId} />
        <div>
          <Label htmlFor="key-mode">Mode</Label>
          <Select id="key-mode" name="mode" defaultValue="test">
            <option value="test">Test (sk_test_)</option>
            <option value="live">Live (sk_live_)</option>
          </Select>
        </div>
        <label className="flex min-h-10 items-center gap-2 text-sm text-neutral-900">
          <input type="checkbox" name="active" className="h-4 w-4" /> Make it the active key
        </label>
        <Button type="submit" disabled={pending || props.full}>
          {pending ? 'Creating…' : 'Create key'}
        </Button>
      </form>
      {props.full ? (
        <p className="text-sm text-neutral-800">
          This workspace has the most keys it may have: delete one to create another.
        </p>
      ) : null}
    </div>
  );
}

export function CreateWorkspaceForm(props: { action: FormAction }) {
  const [state, act, pending] = useActionState(props.action, undefined);
  const made = state?.ok
    ? (state.details as
        | {
            workspace: { id: string; name: string; api_key: string };
            secret_keys: { id: string; mode: string; secret: string }[];
          }
        | undefined)
    : undefined;
  return (
    <div className="space-y-3">
      {state && !state.ok ? <Notice tone="error">{state.message}</Notice> : null}
      {made ? (
        <div className="space-y-2" data-testid="new-workspace">
          <Notice tone="success">
            {state!.message} Its API key is <code className="font-mono">{made.workspace.api_key}</code>.{' '}
            <a className="font-medium underline" href={`/admin/workspaces/${made.workspace.id}/keys`}>
              Open its keys
            </a>
          </Notice>
          {made.secret_keys.map((k) => (
            <OnceSecret
              key={k.id}
              label={`${k.mode === 'live' ? 'Live key (active)' : 'Test key'} ${k.id}`}
              value={k.secret}
              testId={`new-workspace-${k.mode}-secret`}
            />
          ))}
        </div>
      ) : null}
      <form action={act} className="grid gap-3 sm:grid-cols-[1fr_auto_auto_auto] sm:items-end">
        <div>
          <Label htmlFor="ws-name">Name</Label>
          <Input id="ws-name" name="name" required maxLength={200} />
        </div>
        <div>
          <Label htmlFor="ws-flow">Flow</Label>
          <Select id="ws-flow" name="flow" defaultValue="age">
            <option value="age">Age</option>
            <option value="kyc">KYC</option>
          </Select>
        </div>
        <div>
          <Label htmlFor="ws-method">Check method</Label>
          <Select id="ws-method" name="check_method" defaultValue="estimation">
            <option value="estimation">Estimation (selfie)</option>
            <option value="document_verification">Document verification</option>
          </Select>
        </div>
        <Button type="submit" disabled={pending}>
          {pending ? 'Creating…' : 'Create workspace'}
        </Button>
      </form>
    </div>
  );
}

export function InviteForm(props: { action: FormAction; workspaceId: string }) {
  const [state, act, pending] = useActionState(props.action, undefined);
  const link = state?.ok ? (state.details?.link as string | undefined) : undefined;
  return (
    <div className="space-y-3">
      {state?.message ? <Notice tone={state.ok ? 'success' : 'error'}>{state.message}</Notice> : null}
      {link ? (
        <OnceSecret
          label="The invitation link"
          heading="The invitation link (shown this once):"
          value={link}
          testId="invite-link"
          copyLabel="Copy link"
        />
      ) : null}
      <form action={act} className="grid gap-3 sm:grid-cols-[1fr_auto_auto] sm:items-end">
        <input type="hidden" name="workspace_id" value={props.workspaceId} />
        <div>
          <Label htmlFor="invite-email">Email</Label>
          <Input
            id="invite-email"
            name="email"
            type="email"
            required
            maxLength={320}
            aria-invalid={!!state?.fields?.email}
          />
          {state?.fields?.email ? <p className="mt-1 text-sm text-red-900">{state.fields.email.join(' ')}</p> : null}
        </div>
        <div>
          <Label htmlFor="invite-role">Role</Label>
          <Select id="invite-role" name="role" defaultValue="reviewer">
            <option value="reviewer">Reviewer</option>
            <option value="owner">Owner</option>
          </Select>
        </div>
        <Button type="submit" disabled={pending}>
          {pending ? 'Inviting…' : 'Invite'}
        </Button>
      </form>
    </div>
  );
}

export type SettingsValues = {
  name: string;
  flow: string;
  check_method: string;
  age_threshold: number;
  duplicate_threshold: number;
  allow_duplicates: boolean;
  rate_limit_per_minute: number;
  media_retention_days: number;
  enforce_signature: boolean;
  allow_placeholder_signature: boolean;
  require_request_timestamp: boolean;
  require_active_liveness: boolean;
  estimation_fallback: string;
  wallet: string;
  /** comma-separated */
  embed_origins: string;
};

const SETTING_HELP: Record<string, string> = {
  age_threshold: 'Years. Estimation approves when the whole estimated range is at or above it.',
  duplicate_threshold:
    'Cosine similarity, 0 to 1, at which two faces count as the same person (and a blocklisted face matches).',
  allow_duplicates: 'On: no duplicate search (duplicate_check.checked is false).',
  rate_limit_per_minute: 'Requests a rolling minute for the whole workspace; past it, 429 RATE_LIMIT.',
  media_retention_days: "Days a decided verification's photos and personal data are kept (0 to 365).",
  enforce_signature: 'Off: POST /v1/verifications may come unsigned (every other request is still signed).',
  allow_placeholder_signature:
    'On: the header value "placeholder" is accepted as a test-mode signature (development only).',
  require_request_timestamp:
    'On: every signed request must carry X-Request-Timestamp within 5 minutes, signed with it, so a captured request cannot be replayed later. Turn it on once your client sends it (both SDKs can).',
  require_active_liveness: 'On: the hosted page asks for a head-turn before the selfie, and the pipeline requires it.',
  estimation_fallback:
    'Age estimation only: when the estimated range straddles the threshold, a person reviews it, or the same verification asks for a passport, ID card or driving licence and decides by its date of birth.',
  embed_origins:
    'Sites that may show the hosted page inside their own (the embed SDK, docs/sdks.md), comma-separated: https://shop.example, https://app.example. http://localhost works for test-mode verifications only. Empty: the page is never framed.',
  wallet:
    'Offer: where the browser supports it, the hosted page offers "Use a digital ID" (an mDL\'s signed age_over_NN claim) beside the selfie. Proofs are checked against the operator\'s wallet trust list.',
};

/** The settings form: each field shows its own error; values typed survive a refusal. */
export function SettingsForm(props: { action: FormAction; workspaceId: string; initial: SettingsValues }) {
  const [state, act, pending] = useActionState(props.action, undefined);
  const fields = state?.ok ? undefined : state?.fields;
  const v = (k: keyof SettingsValues) =>
    state && !state.ok && state.values?.[k] !== undefined ? state.values[k] : String(props.initial[k]);
  const err = (k: string) =>
    fields?.[k] ? (
      <p id={`${k}-error`} className="mt-1 text-sm text-red-900">
        {fields[k].join(' ')}
      </p>
    ) : null;
  const help = (k: string) =>
    SETTING_HELP[k] ? (
      <p id={`${k}-help`} className="mt-1 text-xs text-neutral-700">
        {SETTING_HELP[k]}
      </p>
    ) : null;
  const described = (k: string) =>
    [SETTING_HELP[k] ? `${k}-help` : '', fields?.[k] ? `${k}-error` : ''].filter(Boolean).join(' ') || undefined;
  const text = (k: keyof SettingsValues, label: string, inputMode?: 'numeric' | 'decimal') => (
    <div key={`${k}-${v(k)}`}>
      <Label htmlFor={`s-${k}`}>{label}</Label>
      <Input
        id={`s-${k}`}
        name={k}
        defaultValue={v(k)}
        inputMode={inputMode}
        required
        aria-invalid={!!fields?.[k]}
        aria-describedby={described(k)}
      />
      {help(k)}
      {err(k)}
    </div>
  );
  const choice = (k: keyof SettingsValues, label: string, options: [string, string][]) => (
    <div key={`${k}-${v(k)}`}>
      <Label htmlFor={`s-${k}`}>{label}</Label>
      <Select id={`s-${k}`} name={k} defaultValue={v(k)} aria-describedby={described(k)}>
        {options.map(([value, l]) => (
          <option key={value} value={value}>
            {l}
          </option>
        ))}
      </Select>
      {help(k)}
      {err(k)}
    </div>
  );
  const onOff: [string, string][] = [
    ['true', 'On'],
    ['false', 'Off'],
  ];
  return (
    <form action={act} className="space-y-4" data-testid="settings-form">
      {state?.message ? <Notice tone={state.ok ? 'success' : 'error'}>{state.message}</Notice> : null}
      <input type="hidden" name="workspace_id" value={props.workspaceId} />
      <div className="grid gap-4 sm:grid-cols-2">
        {text('name', 'Name')}
        {choice('flow', 'Flow', [
          ['age', 'Age'],
          ['kyc', 'KYC'],
        ])}
        {choice('check_method', 'Check method', [
          ['estimation', 'Estimation (selfie)'],
          ['document_verification', 'Document verification'],
        ])}
        {text('age_threshold', 'Age threshold', 'numeric')}
        {text('duplicate_threshold', 'Duplicate threshold', 'decimal')}
        {choice('allow_duplicates', 'Allow duplicate accounts', onOff)}
        {text('rate_limit_per_minute', 'Rate limit per minute', 'numeric')}
        {text('media_retention_days', 'Media retention (days)', 'numeric')}
        {choice('enforce_signature', 'Enforce signature on create', onOff)}
        {choice('allow_placeholder_signature', 'Placeholder signature (test mode)', onOff)}
        {choice('require_request_timestamp', 'Require request timestamps', onOff)}
        {choice('require_active_liveness', 'Require active liveness', onOff)}
        {choice('estimation_fallback', 'When the age estimate cannot decide', [
          ['review', 'A person reviews it'],
          ['document', 'Ask for an ID document'],
        ])}
        {choice('wallet', 'Digital ID wallet', [
          ['off', 'Off'],
          ['offer', 'Offer on the hosted page'],
        ])}
        <div key={`embed_origins-${v('embed_origins')}`} className="sm:col-span-2">
          <Label htmlFor="s-embed_origins">Embedding origins</Label>
          <Input
            id="s-embed_origins"
            name="embed_origins"
            defaultValue={v('embed_origins')}
            placeholder="https://shop.example"
            aria-invalid={!!fields?.embed_origins}
            aria-describedby={described('embed_origins')}
          />
          {help('embed_origins')}
          {err('embed_origins')}
        </div>
      </div>
      <Button type="submit" disabled={pending}>
        {pending ? 'Saving…' : 'Save settings'}
      </Button>
    </form>
  );
}

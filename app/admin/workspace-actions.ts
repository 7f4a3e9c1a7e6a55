'use server';
/**
 * Server actions of the owners' pages (issue 15): workspaces, keys, webhooks, settings, members, consent.
 * Each: requireActor(), zod through formInput(), then lib/domain/admin (membership checks, then the CLI's operations).
 */
import { revalidatePath } from 'next/cache';
import { redirect } from 'next/navigation';
import { z } from 'zod';
import { getDb } from '@/db/client';
import { requireActor } from '@/lib/domain/admin/auth/current';
import { publishConsentAs } from '@/lib/domain/admin/consent';
import { changeRoleAs, inviteMember, removeMemberAs, revokeInvite } from '@/lib/domain/admin/members';
import { redeliverAllFailedAs, redeliverAs, sendTestEventAs, setWebhookUrlAs } from '@/lib/domain/admin/webhooks';
import { activateKeyAs, createKeyAs, createWorkspaceAs, deleteKeyAs, updateSettingsAs } from '@/lib/domain/admin/workspaces';
import { DomainError } from '@/lib/core/errors';
import { asFormState, formInput, type FormState } from './form';

const wsId = z.string().regex(/^ws_[0-9a-z]{26}$/, 'Not a workspace.');
const keyId = z.string().regex(/^key_[0-9a-z]{26}$/, 'Not a key.');
const adminId = z.string().regex(/^adm_[0-9a-z]{26}$/, 'Not an admin.');
const base = (id: string) => `/admin/workspaces/${id}`;
/**
 * Where a row's action goes when done: the page again with word of what was done (the row itself may be gone,
 * or have changed, and its form with it). The page shows fixed sentences for these codes (components/admin/DoneNotice).
 */
const done = (path: string, code: string, subject: string) => `${path}?${new URLSearchParams({ done: code, subject })}`;

const createWorkspaceForm = z.object({
  name: z.string().trim().min(1, 'A name.').max(200),
  flow: z.enum(['age', 'kyc']).default('age'),
  check_method: z.enum(['estimation', 'document_verification']).default('estimation'),
});

export async function createWorkspaceAction(_: FormState, form: FormData): Promise<FormState> {
  const actor = await requireActor();
  try {
    const f = formInput(createWorkspaceForm, form);
    const r = await createWorkspaceAs(getDb(), actor, f);
    revalidatePath('/admin/workspaces');
    // The secrets travel in this answer only: the page never reads them again.
    return { ok: true, message: `Workspace ${r.workspace.name} created.`, details: { workspace: { id: r.workspace.id, name: r.workspace.name, api_key: r.workspace.api_key }, secret_keys: r.secretKeys } };
  } catch (e) {
    return asFormState(e);
  }
}

const createKeyForm = z.object({ workspace_id: wsId, mode: z.enum(['test', 'live'], 'Test or live.'), active: z.literal('on').optional() });

export async function createKeyAction(_: FormState, form: FormData): Promise<FormState> {
  const actor = await requireActor();
  try {
    const f = formInput(createKeyForm, form);
    const key = await createKeyAs(getDb(), actor, { workspaceId: f.workspace_id, mode: f.mode, active: f.active === 'on' });
    revalidatePath(`${base(f.workspace_id)}/keys`);
    return { ok: true, message: 'Key created.', details: { key } };
  } catch (e) {
    return asFormState(e);
  }
}

const keyForm = z.object({ workspace_id: wsId, key_id: keyId });

export async function activateKeyAction(_: FormState, form: FormData): Promise<FormState> {
  const actor = await requireActor();
  let to: string;
  try {
    const f = formInput(keyForm, form);
    const k = await activateKeyAs(getDb(), actor, f.key_id);
    to = done(`${base(f.workspace_id)}/keys`, 'key_activated', k.hint);
  } catch (e) {
    return asFormState(e);
  }
  redirect(to);
}

export async function deleteKeyAction(_: FormState, form: FormData): Promise<FormState> {
  const actor = await requireActor();
  let to: string;
  try {
    const f = formInput(keyForm.extend({ confirm: z.literal('delete', 'Type delete to confirm.') }), form);
    const k = await deleteKeyAs(getDb(), actor, f.key_id);
    to = done(`${base(f.workspace_id)}/keys`, 'key_deleted', k.hint);
  } catch (e) {
    return asFormState(e);
  }
  redirect(to);
}

const webhookUrlForm = z.object({ workspace_id: wsId, webhook_url: z.string().trim().max(2000).default('') });

export async function setWebhookUrlAction(_: FormState, form: FormData): Promise<FormState> {
  const actor = await requireActor();
  try {
    const f = formInput(webhookUrlForm, form);
    await setWebhookUrlAs(getDb(), actor, { workspaceId: f.workspace_id, url: f.webhook_url === '' ? null : f.webhook_url });
    revalidatePath(`${base(f.workspace_id)}/webhooks`);
    return { ok: true, message: f.webhook_url ? 'Webhook URL saved.' : 'Webhook URL removed: events are no longer sent.' };
  } catch (e) {
    return asFormState(e);
  }
}

export async function testEventAction(_: FormState, form: FormData): Promise<FormState> {
  const actor = await requireActor();
  try {
    const f = formInput(z.object({ workspace_id: wsId }), form);
    const r = await sendTestEventAs(getDb(), actor, f.workspace_id);
    const what = r.statusCode ? `HTTP ${r.statusCode}` : (r.error ?? 'no answer');
    return { ok: r.outcome === 'delivered', message: r.outcome === 'delivered' ? `Test event ${r.id} delivered: ${what} in ${r.latencyMs} ms.` : `Test event ${r.id} not accepted: ${what} after ${r.latencyMs} ms.`, details: { response: r.responseBody?.slice(0, 300) ?? null } };
  } catch (e) {
    return asFormState(e);
  }
}

const eventForm = z.object({ workspace_id: wsId, event_id: z.string().regex(/^evt_[0-9a-z]{26}$/, 'Not an event.') });

export async function redeliverAction(_: FormState, form: FormData): Promise<FormState> {
  const actor = await requireActor();
  let to: string;
  try {
    const f = formInput(eventForm, form);
    await redeliverAs(getDb(), actor, f.event_id);
    to = done(`${base(f.workspace_id)}/webhooks`, 'redelivered', f.event_id);
  } catch (e) {
    return asFormState(e);
  }
  redirect(to);
}

export async function redeliverFailedAction(_: FormState, form: FormData): Promise<FormState> {
  const actor = await requireActor();
  let to: string;
  try {
    const f = formInput(z.object({ workspace_id: wsId }), form);
    const n = await redeliverAllFailedAs(getDb(), actor, f.workspace_id);
    to = done(`${base(f.workspace_id)}/webhooks`, 'redelivered_failed', String(n));
  } catch (e) {
    return asFormState(e);
  }
  redirect(to);
}

const bool = z.enum(['true', 'false']).transform((v) => v === 'true');
const int = (msg: string) => z.string().trim().regex(/^-?\d+$/, msg).transform(Number);
const settingsForm = z.object({
  workspace_id: wsId,
  name: z.string().trim().min(1, 'A name.').max(200),
  flow: z.enum(['age', 'kyc']),
  check_method: z.enum(['estimation', 'document_verification']),
  age_threshold: int('A whole number of years.'),
  duplicate_threshold: z.string().trim().regex(/^(0(\.\d+)?|1(\.0+)?)$/, 'A number from 0 to 1.').transform(Number),
  allow_duplicates: bool,
  rate_limit_per_minute: int('A whole number of requests.'),
  media_retention_days: int('A whole number of days.'),
  enforce_signature: bool,
  allow_placeholder_signature: bool,
  require_request_timestamp: bool,
  require_active_liveness: bool,
  estimation_fallback: z.enum(['review', 'document'], 'A person reviews, or ask for an ID document.'),
  wallet: z.enum(['off', 'offer'], 'Off or offer.'),
  // Comma- or space-separated, as typed; each checked by the workspace's schema (embed_origins).
  embed_origins: z.string().max(10_000).transform((s) => s.split(/[\s,]+/).filter(Boolean)),
});

export async function updateSettingsAction(_: FormState, form: FormData): Promise<FormState> {
  const actor = await requireActor();
  const values = Object.fromEntries([...form.entries()].filter(([k, v]) => typeof v === 'string' && !k.startsWith('$ACTION')) as [string, string][]);
  try {
    const { workspace_id, ...patch } = formInput(settingsForm, form);
    await updateSettingsAs(getDb(), actor, workspace_id, patch);
    revalidatePath(`${base(workspace_id)}/settings`);
    return { ok: true, message: 'Settings saved; they apply to the next request. The change is in the audit log.' };
  } catch (e) {
    return { ...asFormState(e), values };
  }
}

const inviteForm = z.object({ workspace_id: wsId, email: z.string().trim().max(320), role: z.enum(['owner', 'reviewer'], 'Owner or reviewer.') });

export async function inviteAction(_: FormState, form: FormData): Promise<FormState> {
  const actor = await requireActor();
  try {
    const f = formInput(inviteForm, form);
    const r = await inviteMember(getDb(), actor, { workspaceId: f.workspace_id, email: f.email, role: f.role });
    revalidatePath(`${base(f.workspace_id)}/members`);
    const mail = r.emailed.sent ? ` An email with the link went to ${r.email}.` : r.emailed.error ? ` The email could not be sent (${r.emailed.error}): send the link yourself.` : ' Send this link to them yourself (no email server is configured).';
    return { ok: true, message: `${r.email} is invited as ${r.role}.${mail} It works once, for seven days.`, details: { link: r.link } };
  } catch (e) {
    return asFormState(e);
  }
}

export async function revokeInviteAction(_: FormState, form: FormData): Promise<FormState> {
  const actor = await requireActor();
  let to: string;
  try {
    const f = formInput(z.object({ workspace_id: wsId, invite_id: z.string().regex(/^inv_[0-9a-z]{26}$/, 'Not an invitation.') }), form);
    await revokeInvite(getDb(), actor, f.invite_id);
    to = done(`${base(f.workspace_id)}/members`, 'invite_revoked', f.invite_id);
  } catch (e) {
    return asFormState(e);
  }
  redirect(to);
}

export async function changeRoleAction(_: FormState, form: FormData): Promise<FormState> {
  const actor = await requireActor();
  let to: string;
  try {
    const f = formInput(z.object({ workspace_id: wsId, admin_id: adminId, role: z.enum(['owner', 'reviewer'], 'Owner or reviewer.') }), form);
    const r = await changeRoleAs(getDb(), actor, { workspaceId: f.workspace_id, adminUserId: f.admin_id, role: f.role });
    // Stepping down from owner leaves this page out of reach: the workspaces list then.
    to = r.id === actor.userId ? '/admin/queue' : done(`${base(f.workspace_id)}/members`, `role_changed_${r.role}`, r.email);
  } catch (e) {
    return asFormState(e);
  }
  redirect(to);
}

export async function removeMemberAction(_: FormState, form: FormData): Promise<FormState> {
  const actor = await requireActor();
  let to: string;
  try {
    const f = formInput(z.object({ workspace_id: wsId, admin_id: adminId }), form);
    const r = await removeMemberAs(getDb(), actor, { workspaceId: f.workspace_id, adminUserId: f.admin_id });
    to = r.id === actor.userId ? '/admin/queue' : done(`${base(f.workspace_id)}/members`, 'member_removed', r.email);
  } catch (e) {
    return asFormState(e);
  }
  redirect(to);
}

const consentForm = z.object({ version: z.string().trim().min(1, 'A version label.').max(100), text: z.string().max(100_000) });

export async function publishConsentAction(_: FormState, form: FormData): Promise<FormState> {
  const actor = await requireActor();
  try {
    const f = formInput(consentForm, form);
    // Browsers send textarea line ends as CRLF: the text is published as typed, with LF line ends.
    const text = f.text.replace(/\r\n/g, '\n');
    if (!text.trim()) throw new DomainError('VALIDATION_ERROR', 'The consent text is empty.', { fields: { text: ['Required.'] } });
    const v = await publishConsentAs(getDb(), actor, { text, version: f.version });
    revalidatePath('/admin/consent');
    return { ok: true, message: `Version ${v.version} (id ${v.id}) is now the active consent text.` };
  } catch (e) {
    return asFormState(e);
  }
}

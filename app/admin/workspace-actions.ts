'use server';
/**
 * Server actions of the owners' pages (issue 15): workspaces, keys, webhooks, settings, members, consent.
 * Each: requireActor(), zod through formInput(), then lib/domain/admin (membership checks, then the CLI's operations).
 */
import { revalidatePath } from 'next/cache';
import { z } from 'zod';
import { getDb } from '@/lib/db/client';
import { publishConsentAs } from '@/lib/domain/admin/consent';
import { changeRoleAs, inviteMember, removeMemberAs, revokeInvite } from '@/lib/domain/admin/members';
import { redeliverAllFailedAs, redeliverAs, sendTestEventAs, setWebhookUrlAs } from '@/lib/domain/admin/webhooks';
import {
  activateKeyAs,
  createKeyAs,
  createWorkspaceAs,
  deleteKeyAs,
  updateSettingsAs,
} from '@/lib/domain/admin/workspaces';
import { DomainError } from '@/lib/core/errors';
import { formAction } from './form';

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

export const createWorkspaceAction = formAction(createWorkspaceForm, async (f, actor) => {
  const r = await createWorkspaceAs(getDb(), actor, f);
  revalidatePath('/admin/workspaces');
  // The secrets travel in this answer only: the page never reads them again.
  return {
    ok: true,
    message: `Workspace ${r.workspace.name} created.`,
    details: {
      workspace: { id: r.workspace.id, name: r.workspace.name, api_key: r.workspace.api_key },
      secret_keys: r.secretKeys,
    },
  };
});

const createKeyForm = z.object({
  workspace_id: wsId,
  mode: z.enum(['test', 'live'], 'Test or live.'),
  active: z.literal('on').optional(),
});

export const createKeyAction = formAction(createKeyForm, async (f, actor) => {
  const key = await createKeyAs(getDb(), actor, {
    workspaceId: f.workspace_id,
    mode: f.mode,
    active: f.active === 'on',
  });
  revalidatePath(`${base(f.workspace_id)}/keys`);
  return { ok: true, message: 'Key created.', details: { key } };
});

const keyForm = z.object({ workspace_id: wsId, key_id: keyId });

export const activateKeyAction = formAction(keyForm, async (f, actor) => {
  const k = await activateKeyAs(getDb(), actor, f.key_id);
  return { redirect: done(`${base(f.workspace_id)}/keys`, 'key_activated', k.hint) };
});

export const deleteKeyAction = formAction(
  keyForm.extend({ confirm: z.literal('delete', 'Type delete to confirm.') }),
  async (f, actor) => {
    const k = await deleteKeyAs(getDb(), actor, f.key_id);
    return { redirect: done(`${base(f.workspace_id)}/keys`, 'key_deleted', k.hint) };
  },
);

const webhookUrlForm = z.object({ workspace_id: wsId, webhook_url: z.string().trim().max(2000).default('') });

export const setWebhookUrlAction = formAction(webhookUrlForm, async (f, actor) => {
  await setWebhookUrlAs(getDb(), actor, {
    workspaceId: f.workspace_id,
    url: f.webhook_url === '' ? null : f.webhook_url,
  });
  revalidatePath(`${base(f.workspace_id)}/webhooks`);
  return {
    ok: true,
    message: f.webhook_url ? 'Webhook URL saved.' : 'Webhook URL removed: events are no longer sent.',
  };
});

export const testEventAction = formAction(z.object({ workspace_id: wsId }), async (f, actor) => {
  const r = await sendTestEventAs(getDb(), actor, f.workspace_id);
  const what = r.statusCode ? `HTTP ${r.statusCode}` : (r.error ?? 'no answer');
  return {
    ok: r.outcome === 'delivered',
    message:
      r.outcome === 'delivered'
        ? `Test event ${r.id} delivered: ${what} in ${r.latencyMs} ms.`
        : `Test event ${r.id} not accepted: ${what} after ${r.latencyMs} ms.`,
    details: { response: r.responseBody?.slice(0, 300) ?? null },
  };
});

const eventForm = z.object({ workspace_id: wsId, event_id: z.string().regex(/^evt_[0-9a-z]{26}$/, 'Not an event.') });

export const redeliverAction = formAction(eventForm, async (f, actor) => {
  await redeliverAs(getDb(), actor, f.event_id);
  return { redirect: done(`${base(f.workspace_id)}/webhooks`, 'redelivered', f.event_id) };
});

export const redeliverFailedAction = formAction(z.object({ workspace_id: wsId }), async (f, actor) => {
  const n = await redeliverAllFailedAs(getDb(), actor, f.workspace_id);
  return { redirect: done(`${base(f.workspace_id)}/webhooks`, 'redelivered_failed', String(n)) };
});

const bool = z.enum(['true', 'false']).transform((v) => v === 'true');
const int = (msg: string) =>
  z
    .string()
    .trim()
    .regex(/^-?\d+$/, msg)
    .transform(Number);
const settingsForm = z.object({
  workspace_id: wsId,
  name: z.string().trim().min(1, 'A name.').max(200),
  flow: z.enum(['age', 'kyc']),
  check_method: z.enum(['estimation', 'document_verification']),
  age_threshold: int('A whole number of years.'),
  duplicate_threshold: z
    .string()
    .trim()
    .regex(/^(0(\.\d+)?|1(\.0+)?)$/, 'A number from 0 to 1.')
    .transform(Number),
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
  embed_origins: z
    .string()
    .max(10_000)
    .transform((s) => s.split(/[\s,]+/).filter(Boolean)),
});

export const updateSettingsAction = formAction(
  settingsForm,
  async ({ workspace_id, ...patch }, actor) => {
    await updateSettingsAs(getDb(), actor, workspace_id, patch);
    revalidatePath(`${base(workspace_id)}/settings`);
    return { ok: true, message: 'Settings saved; they apply to the next request. The change is in the audit log.' };
  },
  { keepValues: true },
);

const inviteForm = z.object({
  workspace_id: wsId,
  email: z.string().trim().max(320),
  role: z.enum(['owner', 'reviewer'], 'Owner or reviewer.'),
});

export const inviteAction = formAction(inviteForm, async (f, actor) => {
  const r = await inviteMember(getDb(), actor, { workspaceId: f.workspace_id, email: f.email, role: f.role });
  revalidatePath(`${base(f.workspace_id)}/members`);
  const mail = r.emailed.sent
    ? ` An email with the link went to ${r.email}.`
    : r.emailed.error
      ? ` The email could not be sent (${r.emailed.error}): send the link yourself.`
      : ' Send this link to them yourself (no email server is configured).';
  return {
    ok: true,
    message: `${r.email} is invited as ${r.role}.${mail} It works once, for seven days.`,
    details: { link: r.link },
  };
});

export const revokeInviteAction = formAction(
  z.object({ workspace_id: wsId, invite_id: z.string().regex(/^inv_[0-9a-z]{26}$/, 'Not an invitation.') }),
  async (f, actor) => {
    await revokeInvite(getDb(), actor, f.invite_id);
    return { redirect: done(`${base(f.workspace_id)}/members`, 'invite_revoked', f.invite_id) };
  },
);

export const changeRoleAction = formAction(
  z.object({ workspace_id: wsId, admin_id: adminId, role: z.enum(['owner', 'reviewer'], 'Owner or reviewer.') }),
  async (f, actor) => {
    const r = await changeRoleAs(getDb(), actor, {
      workspaceId: f.workspace_id,
      adminUserId: f.admin_id,
      role: f.role,
    });
    // Stepping down from owner leaves this page out of reach: the workspaces list then.
    return {
      redirect:
        r.id === actor.userId
          ? '/admin/queue'
          : done(`${base(f.workspace_id)}/members`, `role_changed_${r.role}`, r.email),
    };
  },
);

export const removeMemberAction = formAction(z.object({ workspace_id: wsId, admin_id: adminId }), async (f, actor) => {
  const r = await removeMemberAs(getDb(), actor, { workspaceId: f.workspace_id, adminUserId: f.admin_id });
  return {
    redirect:
      r.id === actor.userId ? '/admin/queue' : done(`${base(f.workspace_id)}/members`, 'member_removed', r.email),
  };
});

const consentForm = z.object({
  version: z.string().trim().min(1, 'A version label.').max(100),
  text: z.string().max(100_000),
});

export const publishConsentAction = formAction(consentForm, async (f, actor) => {
  // Browsers send textarea line ends as CRLF: the text is published as typed, with LF line ends.
  const text = f.text.replace(/\r\n/g, '\n');
  if (!text.trim())
    throw new DomainError('VALIDATION_ERROR', 'The consent text is empty.', { fields: { text: ['Required.'] } });
  const v = await publishConsentAs(getDb(), actor, { text, version: f.version });
  revalidatePath('/admin/consent');
  return { ok: true, message: `Version ${v.version} (id ${v.id}) is now the active consent text.` };
});

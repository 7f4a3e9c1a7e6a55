/**
 * /admin/workspaces/{id}/members – who has access and as what; invite by email (a one-time link, mailed when
 * SMTP is configured), change a role, remove someone (their sessions end at once). The last owner stays.
 */
import type { Metadata } from 'next';
import { getDb } from '@/lib/db/client';
import { requireActor } from '@/app/admin/_auth/current';
import { membersFor } from '@/lib/domain/admin/members';
import { dateTime } from '@/components/admin/format';
import { Card, Empty, layout, Select } from '@/components/admin/ui';
import { ActionForm, InviteForm } from '@/components/admin/OwnerForms';
import { WorkspaceHeader } from '@/components/admin/WorkspaceNav';
import { DoneNotice } from '@/components/admin/DoneNotice';
import { changeRoleAction, inviteAction, removeMemberAction, revokeInviteAction } from '../../../../workspace-actions';
import { orNotFound } from '../../../../page-guard';

export const metadata: Metadata = { title: 'Members' };

export default async function MembersPage(props: {
  params: Promise<{ id: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const actor = await requireActor();
  const { id } = await props.params;
  const q = await props.searchParams;
  const m = await orNotFound(membersFor(getDb(), actor, id));
  const ws = m.workspace;
  return (
    <>
      <WorkspaceHeader
        workspace={ws}
        current="members"
        title="Members"
        subtitle="Owners run the workspace (keys, webhooks, settings, members, usage) and review; reviewers review cases. A change of role or a removal signs the person out at once."
      />
      <DoneNotice q={q} />
      <div className="space-y-5">
        <Card title="Invite someone" id="invite">
          <p className="mb-3 text-sm text-neutral-800">
            {m.mail
              ? 'The invitation is emailed, and its link is shown here too.'
              : 'No email server is configured (SMTP_URL): send the link yourself.'}{' '}
            It works once, for seven days.
          </p>
          <InviteForm action={inviteAction} workspaceId={ws.id} />
        </Card>
        <Card title={`Members (${m.members.length})`} id="members">
          {m.members.length === 0 ? (
            <Empty>No member yet.</Empty>
          ) : (
            <ul className="divide-y divide-neutral-100" data-testid="members">
              {m.members.map((p) => {
                const lastOwner = p.role === 'owner' && m.owners === 1;
                return (
                  <li
                    key={p.id}
                    className="flex flex-wrap items-center justify-between gap-3 py-3"
                    data-member={p.email}
                  >
                    <div className="min-w-0">
                      <p className="font-medium text-neutral-950 [overflow-wrap:anywhere]">
                        {p.email}
                        {p.id === actor.userId ? ' (you)' : ''}
                      </p>
                      <p className="text-xs text-neutral-700">
                        <span data-testid="member-role">{p.role}</span> · since {dateTime(p.since)}
                        {lastOwner ? ' · the last owner' : ''}
                      </p>
                    </div>
                    <div className={layout.row}>
                      <ActionForm
                        inline
                        action={changeRoleAction}
                        hidden={{ workspace_id: ws.id, admin_id: p.id }}
                        submit="Change role"
                        tone="secondary"
                        pendingLabel="Changing…"
                      >
                        <label htmlFor={`role-${p.id}`} className="sr-only">
                          Role of {p.email}
                        </label>
                        <Select id={`role-${p.id}`} name="role" defaultValue={p.role}>
                          <option value="owner">Owner</option>
                          <option value="reviewer">Reviewer</option>
                        </Select>
                      </ActionForm>
                      <ActionForm
                        inline
                        action={removeMemberAction}
                        hidden={{ workspace_id: ws.id, admin_id: p.id }}
                        submit="Remove"
                        tone="danger"
                        pendingLabel="Removing…"
                        confirm={{
                          open: 'Remove…',
                          ariaLabel: `Remove ${p.email}`,
                          text: lastOwner
                            ? 'The last owner cannot be removed: make someone else an owner first.'
                            : `${p.email} loses access to this workspace and is signed out now.`,
                        }}
                      />
                    </div>
                  </li>
                );
              })}
            </ul>
          )}
        </Card>
        <Card title={`Open invitations (${m.invites.length})`} id="invitations">
          {m.invites.length === 0 ? (
            <p className="text-sm text-neutral-800">None.</p>
          ) : (
            <ul className="divide-y divide-neutral-100" data-testid="invites">
              {m.invites.map((i) => (
                <li key={i.id} className="flex flex-wrap items-center justify-between gap-3 py-2">
                  <p className="text-sm [overflow-wrap:anywhere]">
                    {i.email} as {i.role} · until {dateTime(i.expiresAt)}
                  </p>
                  <ActionForm
                    inline
                    action={revokeInviteAction}
                    hidden={{ workspace_id: ws.id, invite_id: i.id }}
                    submit="Withdraw"
                    tone="secondary"
                    confirm={{
                      open: 'Withdraw…',
                      ariaLabel: `Withdraw the invitation of ${i.email}`,
                      text: 'Its link stops working.',
                    }}
                  />
                </li>
              ))}
            </ul>
          )}
        </Card>
      </div>
    </>
  );
}

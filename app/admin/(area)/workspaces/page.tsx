/** /admin/workspaces – the workspaces an owner runs (operators: every one, and a form to create one). */
import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { getDb } from '@/lib/db/client';
import { requireActor } from '@/app/admin/_auth/current';
import { listManagedWorkspaces } from '@/lib/domain/admin/workspaces';
import { dateTime } from '@/components/admin/format';
import { Card, Empty, PageHeader, RecordItem, RecordList, TextLink } from '@/components/admin/ui';
import { CreateWorkspaceForm } from '@/components/admin/OwnerForms';
import { createWorkspaceAction } from '../../workspace-actions';

export const metadata: Metadata = { title: 'Workspaces' };

export default async function WorkspacesPage() {
  const actor = await requireActor();
  const list = await listManagedWorkspaces(getDb(), actor);
  // Reviewers run no workspace: the page does not exist for them.
  if (!actor.isOperator && list.length === 0) notFound();
  return (
    <>
      <PageHeader
        title="Workspaces"
        subtitle={
          actor.isOperator
            ? 'Every workspace of this deployment. Create one here or with npm run ops -- workspace:create.'
            : 'The workspaces you own: their keys, webhooks, settings, members and usage.'
        }
      />
      {actor.isOperator ? (
        <Card title="New workspace" id="new-workspace" className="mb-5">
          <CreateWorkspaceForm action={createWorkspaceAction} />
        </Card>
      ) : null}
      {list.length === 0 ? (
        <Empty>No workspace yet.</Empty>
      ) : (
        <RecordList data-testid="workspaces">
          {list.map((w) => (
            <RecordItem key={w.id}>
              <div className="min-w-0">
                <TextLink href={`/admin/workspaces/${w.id}/keys`} className="font-semibold text-blue-900">
                  {w.name}
                </TextLink>
                <p className="text-xs text-neutral-700 [overflow-wrap:anywhere]">
                  <span className="font-mono">{w.id}</span> ·{' '}
                  {w.flow === 'kyc'
                    ? 'KYC'
                    : `Age, ${w.checkMethod === 'estimation' ? 'estimation' : 'document verification'}`}{' '}
                  · {w.keys} key{w.keys === 1 ? '' : 's'} · {w.members} member{w.members === 1 ? '' : 's'} · webhook{' '}
                  {w.webhookUrl ? 'set' : 'not set'} · created {dateTime(w.createdAt)}
                </p>
              </div>
              <nav aria-label={`${w.name} sections`} className="flex flex-wrap gap-x-3 text-sm">
                {(['keys', 'webhooks', 'settings', 'members', 'usage'] as const).map((s) => (
                  <TextLink key={s} href={`/admin/workspaces/${w.id}/${s}`}>
                    {s[0].toUpperCase() + s.slice(1)}
                  </TextLink>
                ))}
              </nav>
            </RecordItem>
          ))}
        </RecordList>
      )}
    </>
  );
}

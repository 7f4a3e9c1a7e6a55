/** /admin/blocklist – the faces blocked in the admin's workspaces; owners and operators remove entries. */
import type { Metadata } from 'next';
import { getDb } from '@/lib/db/client';
import { requireActor } from '@/app/admin/_auth/current';
import { listBlocklistFor } from '@/lib/domain/admin/blocklist';
import { dateTime } from '@/components/admin/format';
import { Empty, ModeBadge, PageHeader, RecordItem, RecordList, TextLink } from '@/components/admin/ui';
import { UnblockForm } from '@/components/admin/BlocklistForms';
import { WorkspacePicker } from '@/components/admin/WorkspacePicker';
import { unblockAction } from '../../case-actions';

export const metadata: Metadata = { title: 'Blocklist' };

export default async function BlocklistPage(props: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const actor = await requireActor();
  const q = await props.searchParams;
  const workspaceId = actor.workspaces.find((w) => w.workspaceId === q.workspace)?.workspaceId ?? null;
  const entries = await listBlocklistFor(getDb(), actor, { workspaceId });
  return (
    <>
      <PageHeader
        title="Blocklist"
        subtitle="A submission whose selfie matches one of these faces (at the workspace's duplicate threshold) is declined with blocklist_match. Add faces from a case."
        actions={<WorkspacePicker workspaces={actor.workspaces} current={workspaceId} />}
      />
      {entries.length === 0 ? (
        <Empty>No face is blocked{workspaceId ? ' in this workspace' : ''}.</Empty>
      ) : (
        <RecordList data-testid="blocklist">
          {entries.map((e) => (
            <RecordItem key={e.id}>
              <div className="min-w-0">
                <TextLink tone="id" href={`/admin/verifications/${e.verificationId}`} className="text-sm">
                  {e.externalId ?? e.verificationId}
                </TextLink>{' '}
                <ModeBadge mode={e.mode} />
                <p className="text-xs text-neutral-700">
                  {e.workspaceName} · added {dateTime(e.createdAt)} by {e.createdByEmail ?? e.createdBy} ·{' '}
                  <span className="font-mono">{e.id}</span>
                </p>
              </div>
              {e.canRemove ? (
                <UnblockForm action={unblockAction} entryId={e.id} label={e.externalId ?? e.verificationId} />
              ) : null}
            </RecordItem>
          ))}
        </RecordList>
      )}
    </>
  );
}

/** /admin/audit – the audit log of the workspaces the admin owns (operators: everything), filtered and paged. */
import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { getDb } from '@/lib/db/client';
import { requireActor } from '@/app/admin/_auth/current';
import { workspacesFor } from '@/lib/domain/admin/access';
import { AUDIT_ACTIONS, searchAudit } from '@/lib/domain/admin/audit-log';
import { show } from '@/lib/domain/admin/evidence';
import { dateTime, shortId } from '@/components/admin/format';
import { Button, ButtonLink, Input, Label, PageHeader, Select, Td, TextLink } from '@/components/admin/ui';
import {
  FilterProblem,
  filtersFrom,
  NextPage,
  nextPageHref,
  ResultsTable,
  withFilters,
} from '@/components/admin/ListPage';

export const metadata: Metadata = { title: 'Audit log' };

export default async function AuditPage(props: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const actor = await requireActor();
  if (workspacesFor(actor, 'audit.read').length === 0 && !actor.isOperator) notFound();
  const q = await props.searchParams;
  const raw = filtersFrom(q, ['actor', 'verification', 'action', 'workspace', 'cursor']);
  const { result: page, problem } = await withFilters(raw, () => searchAudit(getDb(), actor, raw));
  const value = (k: string) => raw[k] ?? '';
  const auditable = actor.workspaces.filter((w) => workspacesFor(actor, 'audit.read').includes(w.workspaceId));
  return (
    <>
      <PageHeader title="Audit log" subtitle="Who did what, newest first. Times in UTC." />
      <form
        method="get"
        className="mb-5 grid grid-cols-1 gap-3 rounded-lg border border-neutral-200 bg-white p-4 sm:grid-cols-2 lg:grid-cols-5"
      >
        <div>
          <Label htmlFor="actor">Actor</Label>
          <Input id="actor" name="actor" defaultValue={value('actor')} placeholder="email, pipeline, operator…" />
        </div>
        <div>
          <Label htmlFor="verification">Verification id</Label>
          <Input id="verification" name="verification" defaultValue={value('verification')} />
        </div>
        <div>
          <Label htmlFor="action">Action</Label>
          <Select id="action" name="action" defaultValue={value('action')}>
            <option value="">Any</option>
            {AUDIT_ACTIONS.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </Select>
        </div>
        {auditable.length > 1 ? (
          <div>
            <Label htmlFor="workspace">Workspace</Label>
            <Select id="workspace" name="workspace" defaultValue={value('workspace')}>
              <option value="">All</option>
              {auditable.map((w) => (
                <option key={w.workspaceId} value={w.workspaceId}>
                  {w.workspaceName}
                </option>
              ))}
            </Select>
          </div>
        ) : null}
        <div className="flex items-end gap-2">
          <Button type="submit">Filter</Button>
          <ButtonLink href="/admin/audit" variant="secondary">
            Clear
          </ButtonLink>
        </div>
      </form>
      <FilterProblem problem={problem} />
      <ResultsTable
        caption="Audit entries, newest first"
        columns={['When', 'Actor', 'Action', 'Verification', 'Details']}
        testId="audit"
        minWidth="min-w-[44rem]"
        empty="No entry matches."
        rows={page?.items ?? null}
      >
        {page?.items.map((e) => (
          <tr key={e.id}>
            <Td density="roomy" nowrap className="text-neutral-900">
              {dateTime(e.createdAt)}
            </Td>
            <Td density="roomy" className="text-neutral-950">
              {e.who}
            </Td>
            <Td density="roomy" className="font-mono text-xs text-neutral-950">
              {e.action}
            </Td>
            <Td density="roomy">
              {e.verificationId ? (
                <TextLink tone="id" href={`/admin/verifications/${e.verificationId}`} className="text-xs">
                  {shortId(e.verificationId)}
                </TextLink>
              ) : null}
            </Td>
            <Td density="roomy" className="max-w-md break-words text-xs text-neutral-800">
              {e.data ? show(e.data) : ''}
            </Td>
          </tr>
        ))}
      </ResultsTable>
      <NextPage href={nextPageHref('/admin/audit', raw, page?.next ?? null)} label="Older entries" />
    </>
  );
}

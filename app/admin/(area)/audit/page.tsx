/** /admin/audit – the audit log of the workspaces the admin owns (operators: everything), filtered and paged. */
import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { getDb } from '@/db/client';
import { requireActor } from '@/lib/domain/admin/auth/current';
import { workspacesFor } from '@/lib/domain/admin/access';
import { AUDIT_ACTIONS, searchAudit } from '@/lib/domain/admin/audit-log';
import { show } from '@/lib/domain/admin/evidence';
import { dateTime, shortId } from '@/components/admin/format';
import { buttonClass, inputClass, labelClass, PageHeader } from '@/components/admin/ui';
import { FilterProblem, filtersFrom, NextPage, nextPageHref, ResultsTable, withFilters } from '@/components/admin/ListPage';

export const metadata: Metadata = { title: 'Audit log' };

export default async function AuditPage(props: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
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
      <form method="get" className="mb-5 grid grid-cols-1 gap-3 rounded-lg border border-neutral-200 bg-white p-4 sm:grid-cols-2 lg:grid-cols-5">
        <div>
          <label htmlFor="actor" className={labelClass}>Actor</label>
          <input id="actor" name="actor" defaultValue={value('actor')} className={inputClass} placeholder="email, pipeline, operator…" />
        </div>
        <div>
          <label htmlFor="verification" className={labelClass}>Verification id</label>
          <input id="verification" name="verification" defaultValue={value('verification')} className={inputClass} />
        </div>
        <div>
          <label htmlFor="action" className={labelClass}>Action</label>
          <select id="action" name="action" defaultValue={value('action')} className={inputClass}>
            <option value="">Any</option>
            {AUDIT_ACTIONS.map((a) => (
              <option key={a} value={a}>{a}</option>
            ))}
          </select>
        </div>
        {auditable.length > 1 ? (
          <div>
            <label htmlFor="workspace" className={labelClass}>Workspace</label>
            <select id="workspace" name="workspace" defaultValue={value('workspace')} className={inputClass}>
              <option value="">All</option>
              {auditable.map((w) => (
                <option key={w.workspaceId} value={w.workspaceId}>{w.workspaceName}</option>
              ))}
            </select>
          </div>
        ) : null}
        <div className="flex items-end gap-2">
          <button type="submit" className={buttonClass.primary}>Filter</button>
          <Link href="/admin/audit" className={buttonClass.secondary}>Clear</Link>
        </div>
      </form>
      <FilterProblem problem={problem} />
      <ResultsTable caption="Audit entries, newest first" columns={['When', 'Actor', 'Action', 'Verification', 'Details']} testId="audit" minWidth="min-w-[44rem]" empty="No entry matches." rows={page?.items ?? null}>
        {page?.items.map((e) => (
          <tr key={e.id}>
            <td className="whitespace-nowrap px-3 py-2 text-neutral-900">{dateTime(e.createdAt)}</td>
            <td className="px-3 py-2 text-neutral-950">{e.who}</td>
            <td className="px-3 py-2 font-mono text-xs text-neutral-950">{e.action}</td>
            <td className="px-3 py-2">
              {e.verificationId ? (
                <Link href={`/admin/verifications/${e.verificationId}`} className="font-mono text-xs text-blue-900 underline underline-offset-2">
                  {shortId(e.verificationId)}
                </Link>
              ) : null}
            </td>
            <td className="max-w-md break-words px-3 py-2 text-xs text-neutral-800">{e.data ? show(e.data) : ''}</td>
          </tr>
        ))}
      </ResultsTable>
      <NextPage href={nextPageHref('/admin/audit', raw, page?.next ?? null)} label="Older entries" />
    </>
  );
}

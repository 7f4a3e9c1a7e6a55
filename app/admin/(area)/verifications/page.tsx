/** /admin/verifications – search every verification the admin may read; newest first, a page at a time. */
import type { Metadata } from 'next';
import Link from 'next/link';
import { getDb } from '@/db/client';
import { requireActor } from '@/lib/admin/auth/current';
import { searchVerifications, VERIFICATION_STATUSES } from '@/lib/admin/search';
import { reasonLabel, STATUS_LABELS } from '@/lib/admin/evidence';
import { dateTime } from '@/components/admin/format';
import { buttonClass, inputClass, labelClass, ModeBadge, PageHeader, StatusBadge } from '@/components/admin/ui';
import { FilterProblem, filtersFrom, NextPage, nextPageHref, ResultsTable, withFilters } from '@/components/admin/ListPage';

export const metadata: Metadata = { title: 'Verifications' };

type Q = Record<string, string | string[] | undefined>;

export default async function SearchPage(props: { searchParams: Promise<Q> }) {
  const actor = await requireActor();
  const q = await props.searchParams;
  const raw = filtersFrom(q, ['q', 'workspace', 'status', 'mode', 'from', 'to', 'cursor']);
  const { result, problem } = await withFilters(raw, () => searchVerifications(getDb(), actor, raw));
  const fieldErrors = (problem?.details as { fields?: Record<string, string[]> } | undefined)?.fields ?? {};
  const value = (k: string) => raw[k] ?? '';
  return (
    <>
      <PageHeader title="Verifications" subtitle="Search by id or external id, and narrow by status, mode, workspace and date created (UTC)." />
      <form method="get" role="search" className="mb-5 grid grid-cols-1 gap-3 rounded-lg border border-neutral-200 bg-white p-4 sm:grid-cols-2 lg:grid-cols-6">
        <div className="sm:col-span-2">
          <label htmlFor="q" className={labelClass}>Id or external id</label>
          <input id="q" name="q" defaultValue={value('q')} className={inputClass} placeholder="e.g. user-42" />
        </div>
        <div>
          <label htmlFor="status" className={labelClass}>Status</label>
          <select id="status" name="status" defaultValue={value('status')} className={inputClass}>
            <option value="">Any</option>
            {VERIFICATION_STATUSES.map((s) => (
              <option key={s} value={s}>{STATUS_LABELS[s]}</option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="mode" className={labelClass}>Mode</label>
          <select id="mode" name="mode" defaultValue={value('mode')} className={inputClass}>
            <option value="">Both</option>
            <option value="live">Live</option>
            <option value="test">Test</option>
          </select>
        </div>
        <div>
          <label htmlFor="from" className={labelClass}>Created from</label>
          <input id="from" name="from" type="date" defaultValue={value('from')} className={inputClass} aria-invalid={!!fieldErrors.from} />
        </div>
        <div>
          <label htmlFor="to" className={labelClass}>Created to</label>
          <input id="to" name="to" type="date" defaultValue={value('to')} className={inputClass} aria-invalid={!!fieldErrors.to} />
        </div>
        {actor.workspaces.length > 1 ? (
          <div className="sm:col-span-2">
            <label htmlFor="workspace" className={labelClass}>Workspace</label>
            <select id="workspace" name="workspace" defaultValue={value('workspace')} className={inputClass}>
              <option value="">All workspaces</option>
              {actor.workspaces.map((w) => (
                <option key={w.workspaceId} value={w.workspaceId}>{w.workspaceName}</option>
              ))}
            </select>
          </div>
        ) : null}
        <div className="flex items-end gap-2 sm:col-span-2 lg:col-span-4">
          <button type="submit" className={buttonClass.primary}>Search</button>
          <Link href="/admin/verifications" className={buttonClass.secondary}>Clear</Link>
        </div>
      </form>
      <FilterProblem problem={problem} />
      <ResultsTable caption="Verifications, newest first" columns={['Verification', 'Status', 'Workspace', 'Created']} testId="results" minWidth="min-w-[40rem]" empty="No verification matches." rows={result?.items ?? null}>
        {result?.items.map((v) => (
          <tr key={v.id} className="hover:bg-neutral-50">
            <td className="px-3 py-2">
              <Link href={`/admin/verifications/${v.id}`} className="font-mono text-blue-900 underline underline-offset-2">{v.externalId ?? v.id}</Link>
              {v.externalId ? <div className="font-mono text-xs text-neutral-700">{v.id}</div> : null}
            </td>
            <td className="px-3 py-2">
              <span className="flex flex-wrap items-center gap-1">
                <StatusBadge status={v.status} /> <ModeBadge mode={v.mode} />
              </span>
              {v.reason ? <div className="text-xs text-neutral-700">{reasonLabel(v.reason)}</div> : null}
            </td>
            <td className="px-3 py-2 text-neutral-900">{v.workspaceName}</td>
            <td className="whitespace-nowrap px-3 py-2 text-neutral-900">{dateTime(v.createdAt)}</td>
          </tr>
        ))}
      </ResultsTable>
      <NextPage href={nextPageHref('/admin/verifications', raw, result?.next ?? null)} label="Older results" />
    </>
  );
}

/** /admin/verifications – search every verification the admin may read; newest first, a page at a time. */
import type { Metadata } from 'next';
import { getDb } from '@/lib/db/client';
import { requireActor } from '@/app/admin/_auth/current';
import { searchVerifications, VERIFICATION_STATUSES } from '@/lib/domain/admin/search';
import { STATUS_LABELS } from '@/lib/domain/admin/evidence';
import { reasonLabel } from '@/lib/domain/transitions/reasons';
import { dateTime } from '@/components/admin/format';
import {
  Button,
  ButtonLink,
  Input,
  Label,
  ModeBadge,
  PageHeader,
  Select,
  StatusBadge,
  Td,
  TextLink,
} from '@/components/admin/ui';
import {
  FilterProblem,
  filtersFrom,
  NextPage,
  nextPageHref,
  ResultsTable,
  withFilters,
} from '@/components/admin/ListPage';

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
      <PageHeader
        title="Verifications"
        subtitle="Search by id or external id, and narrow by status, mode, workspace and date created (UTC)."
      />
      <form
        method="get"
        role="search"
        className="mb-5 grid grid-cols-1 gap-3 rounded-lg border border-neutral-200 bg-white p-4 sm:grid-cols-2 lg:grid-cols-6"
      >
        <div className="sm:col-span-2">
          <Label htmlFor="q">Id or external id</Label>
          <Input id="q" name="q" defaultValue={value('q')} placeholder="e.g. user-42" />
        </div>
        <div>
          <Label htmlFor="status">Status</Label>
          <Select id="status" name="status" defaultValue={value('status')}>
            <option value="">Any</option>
            {VERIFICATION_STATUSES.map((s) => (
              <option key={s} value={s}>
                {STATUS_LABELS[s]}
              </option>
            ))}
          </Select>
        </div>
        <div>
          <Label htmlFor="mode">Mode</Label>
          <Select id="mode" name="mode" defaultValue={value('mode')}>
            <option value="">Both</option>
            <option value="live">Live</option>
            <option value="test">Test</option>
          </Select>
        </div>
        <div>
          <Label htmlFor="from">Created from</Label>
          <Input id="from" name="from" type="date" defaultValue={value('from')} aria-invalid={!!fieldErrors.from} />
        </div>
        <div>
          <Label htmlFor="to">Created to</Label>
          <Input id="to" name="to" type="date" defaultValue={value('to')} aria-invalid={!!fieldErrors.to} />
        </div>
        {actor.workspaces.length > 1 ? (
          <div className="sm:col-span-2">
            <Label htmlFor="workspace">Workspace</Label>
            <Select id="workspace" name="workspace" defaultValue={value('workspace')}>
              <option value="">All workspaces</option>
              {actor.workspaces.map((w) => (
                <option key={w.workspaceId} value={w.workspaceId}>
                  {w.workspaceName}
                </option>
              ))}
            </Select>
          </div>
        ) : null}
        <div className="flex items-end gap-2 sm:col-span-2 lg:col-span-4">
          <Button type="submit">Search</Button>
          <ButtonLink href="/admin/verifications" variant="secondary">
            Clear
          </ButtonLink>
        </div>
      </form>
      <FilterProblem problem={problem} />
      <ResultsTable
        caption="Verifications, newest first"
        columns={['Verification', 'Status', 'Workspace', 'Created']}
        testId="results"
        minWidth="min-w-[40rem]"
        empty="No verification matches."
        rows={result?.items ?? null}
      >
        {result?.items.map((v) => (
          <tr key={v.id} className="hover:bg-neutral-50">
            <Td density="roomy">
              <TextLink tone="id" href={`/admin/verifications/${v.id}`}>
                {v.externalId ?? v.id}
              </TextLink>
              {v.externalId ? <div className="font-mono text-xs text-neutral-700">{v.id}</div> : null}
            </Td>
            <Td density="roomy">
              <span className="flex flex-wrap items-center gap-1">
                <StatusBadge status={v.status} /> <ModeBadge mode={v.mode} />
              </span>
              {v.reason ? <div className="text-xs text-neutral-700">{reasonLabel(v.reason)}</div> : null}
            </Td>
            <Td density="roomy" className="text-neutral-900">
              {v.workspaceName}
            </Td>
            <Td density="roomy" nowrap className="text-neutral-900">
              {dateTime(v.createdAt)}
            </Td>
          </tr>
        ))}
      </ResultsTable>
      <NextPage href={nextPageHref('/admin/verifications', raw, result?.next ?? null)} label="Older results" />
    </>
  );
}

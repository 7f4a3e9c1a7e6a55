/** /admin/queue – cases waiting for a person, per workspace, live and test apart, oldest first. */
import type { Metadata } from 'next';
import Link from 'next/link';
import { getDb } from '@/lib/db/client';
import { requireActor } from '@/app/admin/_auth/current';
import { decodeCursor } from '@/lib/domain/admin/cursor';
import { openingMode, queueCounts, reviewQueue } from '@/lib/domain/admin/queue';
import { num, STATUS_LABELS } from '@/lib/domain/admin/evidence';
import { reasonLabel } from '@/lib/domain/transitions/reasons';
import { duration, dateTime, shortId } from '@/components/admin/format';
import { ButtonLink, Empty, ModeBadge, Notice, PageHeader, Tabs } from '@/components/admin/ui';
import { WorkspacePicker } from '@/components/admin/WorkspacePicker';

export const metadata: Metadata = { title: 'Review queue' };

type Q = Record<string, string | string[] | undefined>;
const one = (v: string | string[] | undefined) => (typeof v === 'string' && v ? v : null);

function summary(result: unknown): string {
  const r = (result ?? {}) as {
    estimated_age?: number;
    age_range?: { min: number; max: number };
    threshold?: number;
    decision?: string;
  };
  if (typeof r.estimated_age === 'number')
    return `Age estimate ${num(r.estimated_age)} (${num(r.age_range?.min)}–${num(r.age_range?.max)}) vs ${num(r.threshold)}`;
  return r.decision ? `Pipeline: ${r.decision}` : 'No automated evidence (test mode)';
}

export default async function QueuePage(props: { searchParams: Promise<Q> }) {
  const actor = await requireActor();
  const q = await props.searchParams;
  const known = actor.workspaces.find((w) => w.workspaceId === one(q.workspace));
  const workspaceId = known?.workspaceId ?? (actor.workspaces.length === 1 ? actor.workspaces[0].workspaceId : null);
  const db = getDb();
  const counts = await queueCounts(db, actor);
  const inTab = (m: string) =>
    counts.filter((c) => c.mode === m && (!workspaceId || c.workspaceId === workspaceId)).reduce((a, c) => a + c.n, 0);
  // Without ?mode=, the tab with cases waiting (both counts are on the tabs).
  const mode = openingMode(one(q.mode), { live: inTab('live'), test: inTab('test') });
  const page = await reviewQueue(db, actor, { workspaceId, mode, after: decodeCursor(q.after) });
  const perWorkspace = new Map<string, number>();
  for (const c of counts) perWorkspace.set(c.workspaceId, (perWorkspace.get(c.workspaceId) ?? 0) + c.n);
  const href = (m: string, extra: Record<string, string> = {}) =>
    `/admin/queue?${new URLSearchParams({ ...(workspaceId ? { workspace: workspaceId } : {}), mode: m, ...extra })}`;
  const decided = one(q.decided);
  return (
    <>
      <PageHeader
        title="Review queue"
        subtitle={
          known || workspaceId
            ? `${actor.workspaces.find((w) => w.workspaceId === workspaceId)?.workspaceName}`
            : `All ${actor.workspaces.length} workspaces`
        }
        actions={
          <WorkspacePicker
            workspaces={actor.workspaces}
            current={workspaceId}
            hidden={{ mode }}
            counts={perWorkspace}
          />
        }
      />
      {decided ? (
        <Notice tone="success">
          Case {shortId(decided)} {STATUS_LABELS[one(q.status) ?? '']?.toLowerCase() ?? 'decided'}
          {one(q.reason) ? ` (${reasonLabel(one(q.reason))})` : ''}.
        </Notice>
      ) : null}
      <Tabs
        label="Mode"
        items={[
          { href: href('live'), label: 'Live', count: inTab('live'), current: mode === 'live' },
          { href: href('test'), label: 'Test', count: inTab('test'), current: mode === 'test' },
        ]}
      />
      {page.items.length === 0 ? (
        <Empty>
          No {mode} cases are waiting. A case appears here when a submission needs a person: every test-mode submission,
          and live ones whose evidence cannot decide.
        </Empty>
      ) : (
        <ol
          className="divide-y divide-neutral-200 overflow-hidden rounded-lg border border-neutral-200 bg-white"
          data-testid="queue"
        >
          {page.items.map((c) => (
            <li key={c.id}>
              <Link
                href={`/admin/verifications/${c.id}`}
                className="flex flex-wrap items-center gap-x-4 gap-y-1 px-4 py-3 hover:bg-neutral-50 focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-blue-800"
              >
                <span
                  className="w-28 shrink-0 text-sm font-semibold text-neutral-950"
                  title={`In review since ${dateTime(c.inReviewSince)}`}
                >
                  {duration(c.waitingMs)}
                  <span className="sr-only"> waiting</span>
                </span>
                <span className="min-w-0 flex-1">
                  <span className="block truncate font-mono text-sm text-blue-900 underline underline-offset-2">
                    {c.externalId ?? c.id}
                  </span>
                  <span className="block text-xs text-neutral-700">
                    {c.workspaceName} ·{' '}
                    {c.flow === 'kyc'
                      ? 'KYC'
                      : c.checkMethod === 'document_verification'
                        ? 'Age, document'
                        : 'Age, estimation'}{' '}
                    · attempt {c.attemptsUsed} of 5
                  </span>
                </span>
                <span className="text-sm text-neutral-800">{summary(c.result)}</span>
                <ModeBadge mode={c.mode} />
              </Link>
            </li>
          ))}
        </ol>
      )}
      {page.next ? (
        <p className="mt-4">
          <ButtonLink href={href(mode, { after: page.next })} variant="secondary">
            Next {page.items.length} cases
          </ButtonLink>
        </p>
      ) : null}
    </>
  );
}

/** /admin/workspaces/{id}/usage – verifications per day and month, decisions by status and reason, approval rate and median time to decide; CSV. */
import type { Metadata } from 'next';
import { getDb } from '@/lib/db/client';
import { requireActor } from '@/app/admin/_auth/current';
import { USAGE_RANGES, usageFor } from '@/lib/domain/admin/usage';
import { STATUS_LABELS } from '@/lib/domain/admin/evidence';
import { reasonLabel } from '@/lib/domain/transitions/reasons';
import { duration } from '@/components/admin/format';
import { BarChart } from '@/components/admin/BarChart';
import { buttonClass, Card, Empty, Facts, Table, Tabs, Td, Th, THead } from '@/components/admin/ui';
import { WorkspaceHeader } from '@/components/admin/WorkspaceNav';
import { orNotFound } from '../../../../page-guard';

export const metadata: Metadata = { title: 'Usage' };

const SERIES = [
  { key: 'live', label: 'Live', className: 'fill-blue-700' },
  { key: 'test', label: 'Test', className: 'fill-orange-400' },
];

export default async function UsagePage(props: {
  params: Promise<{ id: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const actor = await requireActor();
  const { id } = await props.params;
  const q = await props.searchParams;
  const days = Number(q.days) || 30;
  const u = await orNotFound(usageFor(getDb(), actor, id, { days }));
  const here = `/admin/workspaces/${u.workspace.id}/usage`;
  const t = u.totals;
  return (
    <>
      <WorkspaceHeader
        workspace={u.workspace}
        current="usage"
        title="Usage"
        subtitle="Verifications created (live are billed; test are not) and decisions made, by UTC day."
      />
      <Tabs
        label="Period"
        items={USAGE_RANGES.map((d) => ({
          href: `${here}?days=${d}`,
          label: `Last ${d} days`,
          current: d === u.range.days,
        }))}
      />
      <div className="space-y-5">
        <Card
          title="Summary"
          id="summary"
          actions={
            <a className={buttonClass.secondary} href={`${here}/csv?days=${u.range.days}`} download>
              Download CSV
            </a>
          }
        >
          <div data-testid="usage-summary">
            <Facts
              items={[
                [
                  'Live verifications',
                  <span key="l" data-testid="total-live">
                    {t.live}
                  </span>,
                ],
                [
                  'Test verifications',
                  <span key="t" data-testid="total-test">
                    {t.test}
                  </span>,
                ],
                ['Live approved / declined', `${t.approved} / ${t.declined}`],
                [
                  'Approval rate (live)',
                  <span key="r" data-testid="approval-rate">
                    {t.approvalRate === null ? '—' : `${(t.approvalRate * 100).toFixed(1)} %`}
                  </span>,
                ],
                [
                  'Median submit to decision (live)',
                  t.medianDecisionMs === null
                    ? '—'
                    : t.medianDecisionMs < 60_000
                      ? `${(t.medianDecisionMs / 1000).toFixed(1)} s`
                      : duration(t.medianDecisionMs),
                ],
                ['In review now', `${t.inReview.live ?? 0} live, ${t.inReview.test ?? 0} test`],
              ]}
            />
          </div>
        </Card>
        <Card title="Verifications per day" id="per-day">
          <BarChart
            title="Verifications per day, live and test"
            rows={u.perDay.map((d) => ({ label: d.day, values: { live: d.live, test: d.test } }))}
            series={SERIES}
            unit="day"
          />
          <details className="mt-3">
            <summary className="cursor-pointer text-sm font-semibold">The figures per day</summary>
            <div className="mt-2 max-h-80 overflow-auto" tabIndex={0} role="region" aria-label="Verifications per day">
              <Table data-testid="per-day">
                <THead look="caps">
                  <tr>
                    <Th>Day (UTC)</Th>
                    <Th>Live</Th>
                    <Th>Test</Th>
                  </tr>
                </THead>
                <tbody className="divide-y divide-neutral-100">
                  {[...u.perDay].reverse().map((d) => (
                    <tr key={d.day} data-day={d.day}>
                      <Td>{d.day}</Td>
                      <Td>{d.live}</Td>
                      <Td>{d.test}</Td>
                    </tr>
                  ))}
                </tbody>
              </Table>
            </div>
          </details>
        </Card>
        <Card title="Verifications per month" id="per-month">
          <BarChart
            title="Verifications per month, live and test"
            rows={u.perMonth.map((m) => ({ label: m.month, values: { live: m.live, test: m.test } }))}
            series={SERIES}
            unit="month"
          />
          <div className="mt-3 overflow-x-auto" tabIndex={0} role="region" aria-label="Verifications per month">
            <Table data-testid="per-month">
              <THead look="caps">
                <tr>
                  <Th>Month</Th>
                  <Th>Live</Th>
                  <Th>Test</Th>
                </tr>
              </THead>
              <tbody className="divide-y divide-neutral-100">
                {[...u.perMonth].reverse().map((m) => (
                  <tr key={m.month}>
                    <Td>{m.month}</Td>
                    <Td>{m.live}</Td>
                    <Td>{m.test}</Td>
                  </tr>
                ))}
              </tbody>
            </Table>
          </div>
        </Card>
        <Card title="Decisions by status and reason" id="decisions">
          {u.decisions.length === 0 ? (
            <Empty>No decision in this period.</Empty>
          ) : (
            <div className="overflow-x-auto" tabIndex={0} role="region" aria-label="Decisions by status and reason">
              <Table data-testid="decisions">
                <THead look="caps">
                  <tr>
                    <Th>Mode</Th>
                    <Th>Status</Th>
                    <Th>Reason</Th>
                    <Th>Count</Th>
                  </tr>
                </THead>
                <tbody className="divide-y divide-neutral-100">
                  {u.decisions.map((d) => (
                    <tr
                      key={`${d.mode}-${d.status}-${d.reason}`}
                      data-decision={`${d.mode}:${d.status}:${d.reason ?? ''}`}
                    >
                      <Td>{d.mode}</Td>
                      <Td>{STATUS_LABELS[d.status] ?? d.status}</Td>
                      <Td>{d.reason ? reasonLabel(d.reason) : '—'}</Td>
                      <Td>{d.count}</Td>
                    </tr>
                  ))}
                </tbody>
              </Table>
            </div>
          )}
        </Card>
      </div>
    </>
  );
}

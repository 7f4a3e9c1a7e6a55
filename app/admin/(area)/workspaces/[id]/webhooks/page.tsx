/**
 * /admin/workspaces/{id}/webhooks – the URL (https only, the SSRF checks of every delivery), a signed test
 * event, and the delivery log: every event with each attempt's time, HTTP status, latency, answer and error,
 * newest first, failures alone on their tab; send one or every failed event again.
 */
import type { Metadata } from 'next';
import Link from 'next/link';
import { getDb } from '@/db/client';
import { requireActor } from '@/lib/domain/admin/auth/current';
import { deliveryLog } from '@/lib/domain/admin/webhooks';
import { dateTime, shortId } from '@/components/admin/format';
import { buttonClass, Card, Empty, inputClass, labelClass, ModeBadge, StatusBadge, Tabs } from '@/components/admin/ui';
import { ActionForm } from '@/components/admin/OwnerForms';
import { WorkspaceHeader } from '@/components/admin/WorkspaceNav';
import { DoneNotice } from '@/components/admin/DoneNotice';
import { redeliverAction, redeliverFailedAction, setWebhookUrlAction, testEventAction } from '../../../../workspace-actions';
import { orNotFound } from '../../../../page-guard';

export const metadata: Metadata = { title: 'Webhooks' };

const STATE_TONE: Record<string, string> = {
  delivered: 'text-green-900',
  failed: 'text-red-900',
  pending: 'text-amber-950',
  completed: 'text-neutral-900',
  skipped: 'text-neutral-700',
};

export default async function WebhooksPage(props: { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const actor = await requireActor();
  const { id } = await props.params;
  const q = await props.searchParams;
  const failedOnly = q.failed === '1';
  const cursor = typeof q.cursor === 'string' ? q.cursor : null;
  const log = await orNotFound(deliveryLog(getDb(), actor, { workspaceId: id, failedOnly, cursor }));
  const ws = log.workspace;
  const here = `/admin/workspaces/${ws.id}/webhooks`;
  return (
    <>
      <WorkspaceHeader workspace={ws} current="webhooks" title="Webhooks" subtitle="Each decision is POSTed to this URL, signed with the active key (docs/webhooks.md)." />
      <DoneNotice q={q} />
      <div className="space-y-5">
        <Card title="Endpoint" id="endpoint">
          <ActionForm action={setWebhookUrlAction} hidden={{ workspace_id: ws.id }} submit="Save URL" pendingLabel="Saving…">
            <div>
              <label htmlFor="webhook-url" className={labelClass}>Webhook URL (https://; empty: no webhooks)</label>
              <input id="webhook-url" name="webhook_url" type="url" defaultValue={ws.webhookUrl ?? ''} maxLength={2000} placeholder="https://example.com/webhooks/open-verify" className={inputClass} />
            </div>
          </ActionForm>
          <div className="mt-4 border-t border-neutral-200 pt-4">
            <p className="mb-2 text-sm text-neutral-800">
              A test event is a sample <code>approved</code> payload signed like a real one, with the header <code>X-Webhook-Test: true</code>. It is sent once, now, and not retried.
            </p>
            <ActionForm action={testEventAction} hidden={{ workspace_id: ws.id }} submit="Send a test event" pendingLabel="Sending…" tone="secondary" />
          </div>
        </Card>
        <Card title="Delivery log" id="deliveries" actions={<ActionForm inline action={redeliverFailedAction} hidden={{ workspace_id: ws.id }} submit="Send every failed event again" tone="secondary" pendingLabel="Sending…" />}>
          <Tabs
            label="Which events"
            items={[
              { href: here, label: 'All events', current: !failedOnly },
              { href: `${here}?failed=1`, label: 'Failed', current: failedOnly },
            ]}
          />
          {log.events.length === 0 ? (
            <Empty>{failedOnly ? 'No failed event.' : 'No event yet: one is sent when a verification reaches a webhook status.'}</Empty>
          ) : (
            <ul className="space-y-3" data-testid="deliveries">
              {log.events.map((e) => (
                <li key={e.id} className="rounded-md border border-neutral-200 p-3" data-event={e.id}>
                  <div className="flex flex-wrap items-center justify-between gap-2">
                    <div className="min-w-0 text-sm">
                      <StatusBadge status={e.status} /> <ModeBadge mode={e.mode} />{' '}
                      <Link href={`/admin/verifications/${e.verificationId}`} className="font-mono text-blue-900 underline underline-offset-2">{e.externalId ?? shortId(e.verificationId)}</Link>
                      <span className="text-neutral-700"> · <span className="font-mono">{e.id}</span> · {dateTime(e.createdAt)} · </span>
                      <span className={`font-semibold ${STATE_TONE[e.state] ?? ''}`} data-testid="event-state">{e.state}</span>
                      {e.state === 'pending' && e.attempts > 0 ? <span className="text-neutral-700"> (next attempt {dateTime(e.nextAttemptAt)})</span> : null}
                    </div>
                    {e.state !== 'pending' ? <ActionForm inline action={redeliverAction} hidden={{ workspace_id: ws.id, event_id: e.id }} submit="Send again" tone="secondary" pendingLabel="Sending…" /> : null}
                  </div>
                  {e.attemptLog.length ? (
                    <div className="mt-2 overflow-x-auto" tabIndex={0} role="region" aria-label={`Attempts of event ${e.id}`}>
                      <table className="w-full min-w-[40rem] text-left text-xs">
                        <caption className="sr-only">Attempts of event {e.id}</caption>
                        <thead className="text-neutral-700">
                          <tr>
                            <th scope="col" className="py-1 pr-3">#</th>
                            <th scope="col" className="py-1 pr-3">Time</th>
                            <th scope="col" className="py-1 pr-3">Status</th>
                            <th scope="col" className="py-1 pr-3">Latency</th>
                            <th scope="col" className="py-1 pr-3">Outcome</th>
                            <th scope="col" className="py-1 pr-3">Answer or error</th>
                          </tr>
                        </thead>
                        <tbody className="divide-y divide-neutral-100">
                          {e.attemptLog.map((a) => (
                            <tr key={`${a.attempt}-${a.startedAt.toISOString()}`}>
                              <td className="py-1 pr-3">{a.attempt}</td>
                              <td className="whitespace-nowrap py-1 pr-3">{dateTime(a.startedAt)}</td>
                              <td className="py-1 pr-3">{a.statusCode ?? '—'}</td>
                              <td className="py-1 pr-3">{a.latencyMs === null ? '—' : `${a.latencyMs} ms`}</td>
                              <td className="py-1 pr-3">{a.outcome}</td>
                              <td className="py-1 pr-3 font-mono [overflow-wrap:anywhere]">{a.error ?? a.responseExcerpt ?? ''}</td>
                            </tr>
                          ))}
                        </tbody>
                      </table>
                    </div>
                  ) : (
                    <p className="mt-1 text-xs text-neutral-700">No attempt yet.</p>
                  )}
                </li>
              ))}
            </ul>
          )}
          {log.next ? (
            <p className="mt-3">
              <Link className={buttonClass.secondary} href={`${here}?${new URLSearchParams({ ...(failedOnly ? { failed: '1' } : {}), cursor: log.next })}`}>Older events</Link>
            </p>
          ) : null}
        </Card>
      </div>
    </>
  );
}

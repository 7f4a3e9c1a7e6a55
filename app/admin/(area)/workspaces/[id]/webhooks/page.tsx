/**
 * /admin/workspaces/{id}/webhooks – the URL (https only, the SSRF checks of every delivery), a signed test
 * event, and the delivery log: every event with each attempt's time, HTTP status, latency, answer and error,
 * newest first, failures alone on their tab; send one or every failed event again.
 */
import type { Metadata } from 'next';
import { getDb } from '@/lib/db/client';
import { requireActor } from '@/app/admin/_auth/current';
import { deliveryLog } from '@/lib/domain/admin/webhooks';
import { dateTime, shortId } from '@/components/admin/format';
import {
  boxVariants,
  ButtonLink,
  Card,
  Empty,
  Input,
  Label,
  layout,
  ModeBadge,
  StatusBadge,
  Table,
  Tabs,
  Td,
  TextLink,
  Th,
  THead,
} from '@/components/admin/ui';
import { ActionForm } from '@/components/admin/OwnerForms';
import { WorkspaceHeader } from '@/components/admin/WorkspaceNav';
import { DoneNotice } from '@/components/admin/DoneNotice';
import {
  redeliverAction,
  redeliverFailedAction,
  setWebhookUrlAction,
  testEventAction,
} from '../../../../workspace-actions';
import { orNotFound } from '../../../../page-guard';

export const metadata: Metadata = { title: 'Webhooks' };

const STATE_TONE: Record<string, string> = {
  delivered: 'text-green-900',
  failed: 'text-red-900',
  pending: 'text-amber-950',
  completed: 'text-neutral-900',
  skipped: 'text-neutral-700',
};

export default async function WebhooksPage(props: {
  params: Promise<{ id: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
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
      <WorkspaceHeader
        workspace={ws}
        current="webhooks"
        title="Webhooks"
        subtitle="Each decision is POSTed to this URL, signed with the active key (docs/webhooks.md)."
      />
      <DoneNotice q={q} />
      <div className="space-y-5">
        <Card title="Endpoint" id="endpoint">
          <ActionForm
            action={setWebhookUrlAction}
            hidden={{ workspace_id: ws.id }}
            submit="Save URL"
            pendingLabel="Saving…"
          >
            <div>
              <Label htmlFor="webhook-url">Webhook URL (https://; empty: no webhooks)</Label>
              <Input
                id="webhook-url"
                name="webhook_url"
                type="url"
                defaultValue={ws.webhookUrl ?? ''}
                maxLength={2000}
                placeholder="https://example.com/webhooks/open-verify"
              />
            </div>
          </ActionForm>
          <div className={layout.separated}>
            <p className="mb-2 text-sm text-neutral-800">
              A test event is a sample <code>approved</code> payload signed like a real one, with the header{' '}
              <code>X-Webhook-Test: true</code>. It is sent once, now, and not retried.
            </p>
            <ActionForm
              action={testEventAction}
              hidden={{ workspace_id: ws.id }}
              submit="Send a test event"
              pendingLabel="Sending…"
              tone="secondary"
            />
          </div>
        </Card>
        <Card
          title="Delivery log"
          id="deliveries"
          actions={
            <ActionForm
              inline
              action={redeliverFailedAction}
              hidden={{ workspace_id: ws.id }}
              submit="Send every failed event again"
              tone="secondary"
              pendingLabel="Sending…"
            />
          }
        >
          <Tabs
            label="Which events"
            items={[
              { href: here, label: 'All events', current: !failedOnly },
              { href: `${here}?failed=1`, label: 'Failed', current: failedOnly },
            ]}
          />
          {log.events.length === 0 ? (
            <Empty>
              {failedOnly
                ? 'No failed event.'
                : 'No event yet: one is sent when a verification reaches a webhook status.'}
            </Empty>
          ) : (
            <ul className="space-y-3" data-testid="deliveries">
              {log.events.map((e) => (
                <li key={e.id} className={boxVariants()} data-event={e.id}>
                  <div className="flex flex-wrap items-center justify-between gap-2">
                    <div className="min-w-0 text-sm">
                      <StatusBadge status={e.status} /> <ModeBadge mode={e.mode} />{' '}
                      <TextLink tone="id" href={`/admin/verifications/${e.verificationId}`}>
                        {e.externalId ?? shortId(e.verificationId)}
                      </TextLink>
                      <span className="text-neutral-700">
                        {' '}
                        · <span className="font-mono">{e.id}</span> · {dateTime(e.createdAt)} ·{' '}
                      </span>
                      <span className={`font-semibold ${STATE_TONE[e.state] ?? ''}`} data-testid="event-state">
                        {e.state}
                      </span>
                      {e.state === 'pending' && e.attempts > 0 ? (
                        <span className="text-neutral-700"> (next attempt {dateTime(e.nextAttemptAt)})</span>
                      ) : null}
                    </div>
                    {e.state !== 'pending' ? (
                      <ActionForm
                        inline
                        action={redeliverAction}
                        hidden={{ workspace_id: ws.id, event_id: e.id }}
                        submit="Send again"
                        tone="secondary"
                        pendingLabel="Sending…"
                      />
                    ) : null}
                  </div>
                  {e.attemptLog.length ? (
                    <div
                      className="mt-2 overflow-x-auto"
                      tabIndex={0}
                      role="region"
                      aria-label={`Attempts of event ${e.id}`}
                    >
                      <Table size="xs" className="min-w-[40rem]">
                        <caption className="sr-only">Attempts of event {e.id}</caption>
                        <THead>
                          <tr>
                            <Th>#</Th>
                            <Th>Time</Th>
                            <Th>Status</Th>
                            <Th>Latency</Th>
                            <Th>Outcome</Th>
                            <Th>Answer or error</Th>
                          </tr>
                        </THead>
                        <tbody className="divide-y divide-neutral-100">
                          {e.attemptLog.map((a) => (
                            <tr key={`${a.attempt}-${a.startedAt.toISOString()}`}>
                              <Td>{a.attempt}</Td>
                              <Td nowrap>{dateTime(a.startedAt)}</Td>
                              <Td>{a.statusCode ?? '—'}</Td>
                              <Td>{a.latencyMs === null ? '—' : `${a.latencyMs} ms`}</Td>
                              <Td>{a.outcome}</Td>
                              <Td className="font-mono [overflow-wrap:anywhere]">
                                {a.error ?? a.responseExcerpt ?? ''}
                              </Td>
                            </tr>
                          ))}
                        </tbody>
                      </Table>
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
              <ButtonLink
                variant="secondary"
                href={`${here}?${new URLSearchParams({ ...(failedOnly ? { failed: '1' } : {}), cursor: log.next })}`}
              >
                Older events
              </ButtonLink>
            </p>
          ) : null}
        </Card>
      </div>
    </>
  );
}

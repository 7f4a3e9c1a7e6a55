/**
 * /admin/verifications/{id} – one case, everything needed to decide it on one screen: the photos, what
 * the machine measured (each check with value, threshold and meaning), duplicates and blocklist matches
 * side by side, the history, and the decision. Each opening is written to the audit log.
 */
import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { getDb } from '@/lib/db/client';
import { requireActor } from '@/app/admin/_auth/current';
import { auditCaseView, loadCase, type CaseView } from '@/lib/domain/admin/case';
import { num, pipelineFacts, resultFacts, STATUS_LABELS, uploadFacts } from '@/lib/domain/admin/evidence';
import { timeline } from '@/lib/domain/admin/timeline';
import { lastDecision } from '@/lib/domain/admin/decide';
import { resubmitReasonsFor } from '@/lib/domain/verifications/review';
import { DECLINE_REASONS, REASONS, reasonLabel, type ReasonCode } from '@/lib/domain/transitions/reasons';
import { DomainError } from '@/lib/core/errors';
import { dateTime, shortId } from '@/components/admin/format';
import {
  boxVariants,
  Card,
  cn,
  Facts,
  layout,
  ModeBadge,
  Notice,
  PageHeader,
  StatusBadge,
  TextLink,
} from '@/components/admin/ui';
import { FactTable } from '@/components/admin/FactTable';
import { DecisionPanel } from '@/components/admin/DecisionPanel';
import { Photo } from '@/components/admin/Photo';
import { BlockForm, UnblockForm } from '@/components/admin/BlocklistForms';
import { EraseForm } from '@/components/admin/EraseForm';
import { ERASURE_ABANDONS } from '@/lib/domain/transitions/policy';
import { blockAction, decideAction, eraseAction, unblockAction } from '../../../case-actions';

export const metadata: Metadata = { title: 'Case' };

const KIND_LABEL = { selfie: 'Selfie', document_front: 'Document front', document_back: 'Document back' } as const;
const reasons = (list: readonly ReasonCode[]) => list.map((value) => ({ value, label: REASONS[value].label }));

export default async function CasePage(props: {
  params: Promise<{ id: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const actor = await requireActor();
  const { id } = await props.params;
  const q = await props.searchParams;
  let c: CaseView;
  try {
    c = await loadCase(getDb(), actor, id);
  } catch (e) {
    if (e instanceof DomainError && e.code === 'NOT_FOUND') notFound();
    throw e;
  }
  await auditCaseView(getDb(), actor, c);
  const v = c.verification;
  const decided = v.status !== 'review' ? await lastDecision(getDb(), v.id) : null;
  const justDecided = typeof q.decided === 'string' ? q.decided : null;
  const queue = new URLSearchParams({ workspace: v.workspaceId, mode: v.mode }).toString();
  const latest = c.pipelineRuns[c.pipelineRuns.length - 1];
  const { events, views } = timeline(c);
  const flow =
    v.flow === 'kyc'
      ? 'KYC'
      : v.checkMethod === 'document_verification'
        ? 'Age, document verification'
        : v.stepUp === 'document'
          ? 'Age, estimation, stepped up to a document'
          : 'Age, estimation';

  return (
    <>
      {justDecided ? (
        <Notice tone="success">
          Case {shortId(justDecided)}: {STATUS_LABELS[String(q.status)]?.toLowerCase() ?? 'decided'}
          {typeof q.reason === 'string' ? ` (${reasonLabel(q.reason)})` : ''}. This is the next case in the queue.
        </Notice>
      ) : null}
      <PageHeader
        title={`Case ${v.externalId ?? shortId(v.id)}`}
        subtitle={
          <span className={layout.row}>
            <StatusBadge status={v.status} />
            <ModeBadge mode={v.mode} />
            {v.reason ? <span className="text-neutral-900">{reasonLabel(v.reason)}</span> : null}
            <span className="font-mono text-xs text-neutral-700 [overflow-wrap:anywhere]">{v.id}</span>
          </span>
        }
      />

      <div className="grid grid-cols-1 gap-4 lg:grid-cols-3">
        <Card title="Photos" id="photos" className="lg:col-span-2">
          {c.erasure ? (
            <p className="text-sm text-neutral-800">
              The photos were erased on {dateTime(c.erasure.at)} (see Data below).
            </p>
          ) : c.photos.length === 0 ? (
            <p className="text-sm text-neutral-800">
              No photo was uploaded{v.status === 'expired' ? ' before the link expired' : ''}.
            </p>
          ) : (
            <div className="grid grid-cols-1 gap-3 sm:grid-cols-3">
              {c.photos.map((p) => (
                <Photo
                  key={p.mediaId}
                  src={p.url}
                  alt={`${KIND_LABEL[p.kind]} of case ${v.externalId ?? shortId(v.id)}`}
                  caption={`${KIND_LABEL[p.kind]}${p.documentType ? ` (${p.documentType.replace(/_/g, ' ')})` : ''}, ${p.width}×${p.height}`}
                />
              ))}
            </div>
          )}
          <p className="mt-3 text-xs text-neutral-700">
            Photos are decrypted for this view only: their links work in this browser session for ten minutes, and each
            view is in the audit log.
          </p>
        </Card>

        <Card title="Decision" id="decision">
          <Facts
            items={[
              ['Workspace', c.workspace.name],
              ['Flow', flow],
              ['Attempts', `${v.attemptsUsed} used, ${c.attemptsRemaining} left`],
              ['Created', dateTime(v.createdAt)],
              ['Submitted', dateTime(v.submittedAt)],
              ...(v.externalId
                ? ([
                    [
                      'External id',
                      <span key="x" className="font-mono">
                        {v.externalId}
                      </span>,
                    ],
                  ] as [string, React.ReactNode][])
                : []),
              // The integrator's metadata, decrypted for this view (it is stored under the case's data key).
              ...(v.externalMetadataRaw
                ? ([
                    [
                      'Metadata',
                      <span key="m" className="font-mono text-xs [overflow-wrap:anywhere]">
                        {v.externalMetadataRaw.length > 500
                          ? `${v.externalMetadataRaw.slice(0, 500)}…`
                          : v.externalMetadataRaw}
                      </span>,
                    ],
                  ] as [string, React.ReactNode][])
                : []),
            ]}
          />
          <div className={layout.separated}>
            {v.status === 'review' ? (
              <DecisionPanel
                action={decideAction}
                verificationId={v.id}
                testMode={v.mode === 'test'}
                canDecide={c.can.decide}
                previous={c.neighbours.previous}
                next={c.neighbours.next}
                queue={queue}
                declineReasons={reasons(DECLINE_REASONS)}
                resubmitReasons={reasons(resubmitReasonsFor(v))}
              />
            ) : (
              <div className="space-y-2 text-sm">
                <p data-testid="decision-summary" className="text-neutral-950">
                  {decided ? (
                    <>
                      <strong>{STATUS_LABELS[decided.status ?? v.status]}</strong>
                      {decided.reason ? ` (${reasonLabel(decided.reason)})` : ''} by {decided.who},{' '}
                      {dateTime(decided.at)}.
                    </>
                  ) : (
                    <>Not waiting for review: {STATUS_LABELS[v.status].toLowerCase()}.</>
                  )}
                </p>
                {c.neighbours.next ? (
                  <TextLink href={`/admin/verifications/${c.neighbours.next}`}>Next waiting case →</TextLink>
                ) : (
                  <TextLink href={`/admin/queue?${queue}`}>Back to the queue</TextLink>
                )}
              </div>
            )}
          </div>
        </Card>
      </div>

      <div className="mt-4 grid grid-cols-1 gap-4">
        <Card title="What the machine measured" id="evidence">
          {v.mode === 'test' && !latest ? (
            <p className="mb-3 text-sm text-neutral-800">
              Test mode: the automated decision is skipped and every submission comes here. The upload checks below
              still ran.
            </p>
          ) : null}
          {latest ? (
            <p className="mb-3 text-sm text-neutral-900">
              Pipeline, attempt {latest.data.attempt ?? '?'}:{' '}
              <strong>{STATUS_LABELS[latest.data.status ?? ''] ?? latest.data.status}</strong>
              {latest.data.reason ? ` — ${reasonLabel(latest.data.reason)}` : ''}, {dateTime(latest.at)}.
              {latest.data.status === 'review' ? ' It could not decide on its own, so a person must.' : ''}
            </p>
          ) : null}
          <FactTable caption="Decision result" facts={resultFacts(v.result)} />
          {latest?.data.checks ? (
            <div className="mt-3">
              <FactTable caption="Pipeline checks" facts={pipelineFacts(latest.data.checks, c.workspace)} />
            </div>
          ) : null}
          {c.jobs.some((j) => j.lastError) ? (
            <p className="mt-3 text-sm text-red-900">
              Pipeline errors:{' '}
              {c.jobs
                .filter((j) => j.lastError)
                .map((j) => `attempt ${j.attempt}: ${j.lastError}`)
                .join('; ')}
            </p>
          ) : null}
        </Card>

        <Card title="Upload checks" id="uploads">
          {c.uploads.filter((u) => u.current).length === 0 ? (
            <p className="text-sm text-neutral-800">No accepted upload.</p>
          ) : null}
          <div className="space-y-5">
            {c.uploads
              .filter((u) => u.current)
              .map((u) => (
                <div key={u.id}>
                  <h3 className="mb-1 text-sm font-semibold text-neutral-950">
                    {KIND_LABEL[u.kind]}{' '}
                    <span className="font-normal text-neutral-700">uploaded {dateTime(u.createdAt)}</span>
                  </h3>
                  <FactTable caption={`${KIND_LABEL[u.kind]} checks`} facts={uploadFacts(u.analysis?.checks ?? {})} />
                </div>
              ))}
          </div>
        </Card>

        <Card title="Duplicates and blocklist" id="matches">
          <Matches c={c} />
        </Card>

        <Card title="Blocklist" id="blocklist">
          {c.blocklisted.length ? (
            <ul className="space-y-2 text-sm">
              {c.blocklisted.map((b) => (
                <li key={b.id} className="flex flex-wrap items-center gap-3">
                  <span className="text-neutral-950">
                    This face is on the blocklist since {dateTime(b.createdAt)} (
                    <span className="font-mono">{b.id}</span>).
                  </span>
                  {c.can.blocklistRemove ? (
                    <UnblockForm action={unblockAction} entryId={b.id} label="this face" />
                  ) : null}
                </li>
              ))}
            </ul>
          ) : c.can.blocklistAdd && c.ownSelfie ? (
            <BlockForm action={blockAction} verificationId={v.id} />
          ) : (
            <p className="text-sm text-neutral-800">
              {c.ownSelfie ? 'Your role cannot add to the blocklist.' : 'There is no selfie to add.'}
            </p>
          )}
        </Card>

        <Card title="Data" id="data">
          {c.erasure ? (
            <div className="space-y-2 text-sm">
              <p className="text-neutral-950">
                Erased on {dateTime(c.erasure.at)}
                {c.erasure.receipt
                  ? ` (${c.erasure.receipt.receipt.trigger === 'retention' ? `retention of ${c.erasure.receipt.receipt.retention_days} days` : `requested by ${c.erasure.receipt.receipt.requested_by}`})`
                  : ''}
                : photos, faces and personal fields are gone.
              </p>
              {c.erasure.receipt ? (
                <details>
                  <summary className="cursor-pointer text-neutral-900">
                    Signed erasure receipt {c.erasure.receipt.receipt.id}
                  </summary>
                  <pre
                    data-testid="erasure-receipt"
                    className="mt-2 max-h-80 overflow-auto rounded bg-neutral-100 p-2 text-xs text-neutral-950 [overflow-wrap:anywhere] whitespace-pre-wrap"
                  >
                    {JSON.stringify(c.erasure.receipt, null, 2)}
                  </pre>
                  <p className="mt-1 text-xs text-neutral-700">
                    Check it against the public keys at /receipt-keys (docs/receipts.md).
                  </p>
                </details>
              ) : null}
            </div>
          ) : c.can.erase ? (
            <EraseForm action={eraseAction} verificationId={v.id} inProgress={ERASURE_ABANDONS.has(v.status)} />
          ) : (
            <p className="text-sm text-neutral-800">
              Held until its retention ends. Only an owner of the workspace can erase it sooner.
            </p>
          )}
        </Card>

        <Card title="History" id="history">
          <ol className="space-y-3 border-l-2 border-neutral-200 pl-4" data-testid="timeline">
            {events.map((e, i) => (
              <li key={i} className="relative">
                <span
                  aria-hidden="true"
                  className={cn(
                    'absolute -left-[1.4rem] top-1.5 h-3 w-3 rounded-full ring-2 ring-white',
                    e.tone === 'good'
                      ? 'bg-green-600'
                      : e.tone === 'bad'
                        ? 'bg-red-600'
                        : e.tone === 'warn'
                          ? 'bg-amber-500'
                          : 'bg-neutral-400',
                  )}
                />
                <p className="text-sm font-medium text-neutral-950">{e.title}</p>
                <p className="text-xs text-neutral-700 [overflow-wrap:anywhere]">
                  {dateTime(e.at)}
                  {e.detail ? ` · ${e.detail}` : ''}
                </p>
                {e.attempts?.length ? (
                  <ul className="mt-1 space-y-0.5 text-xs">
                    {e.attempts.map((a, j) => (
                      <li key={j} className={a.ok ? 'text-green-900' : 'text-neutral-800'}>
                        {a.at.slice(11, 19)} UTC {a.text}
                      </li>
                    ))}
                  </ul>
                ) : null}
              </li>
            ))}
          </ol>
          <p className="mt-3 text-xs text-neutral-700">
            Opened {views} time{views === 1 ? '' : 's'} in the admin area (each opening and photo view is in the audit
            log).
          </p>
        </Card>
      </div>
    </>
  );
}

function FacePair(props: {
  own: string | null;
  other: { id: string; status: string; externalId: string | null; selfieUrl: string | null } | null;
  score: string;
  verdict: string;
  label: string;
}) {
  return (
    <li className={boxVariants()}>
      <div className="grid grid-cols-2 gap-2">
        {props.own ? (
          <Photo src={props.own} alt="This case's selfie" caption="This case" />
        ) : (
          <p className="text-sm">No selfie</p>
        )}
        {props.other?.selfieUrl ? (
          <Photo src={props.other.selfieUrl} alt={`Selfie of ${props.label}`} caption={props.label} />
        ) : (
          <p className="text-sm text-neutral-800">
            {props.label}: photo no longer kept (retention) or not visible to you.
          </p>
        )}
      </div>
      <p className="mt-2 text-sm text-neutral-950">
        Similarity <strong>{props.score}</strong> {props.verdict}
        {props.other ? (
          <>
            {' · '}
            <TextLink href={`/admin/verifications/${props.other.id}`}>
              open {props.other.externalId ?? shortId(props.other.id)}
            </TextLink>{' '}
            <StatusBadge status={props.other.status} />
          </>
        ) : null}
      </p>
    </li>
  );
}

function Matches({ c }: { c: CaseView }) {
  const th = num(c.workspace.duplicateThreshold);
  const dup = c.duplicates;
  return (
    <div className="space-y-4">
      {c.blocklistMatch ? (
        <div>
          <h3 className="mb-2 text-sm font-semibold text-red-900">Matched a blocklisted face</h3>
          <ul>
            <FacePair
              own={c.ownSelfie}
              other={c.blocklistMatch.other}
              score={num(c.blocklistMatch.similarity)}
              verdict={`(threshold ${th}: at or above means the same person)`}
              label="blocklisted face"
            />
          </ul>
        </div>
      ) : null}
      {!dup || !dup.checked ? (
        <p className="text-sm text-neutral-800">
          {c.workspace.allowDuplicates
            ? 'This workspace allows duplicate accounts, so faces are not compared.'
            : v(c) === 'test'
              ? 'Duplicates are searched by the automated pipeline, which test mode skips.'
              : 'Not checked: no usable face, or not processed yet. This is no answer, not a clean result.'}
        </p>
      ) : dup.count === 0 ? (
        <p className="text-sm text-neutral-900">
          Checked: no other account in this workspace has a face at or above the threshold ({th}).
        </p>
      ) : (
        <div>
          <h3 className="mb-2 text-sm font-semibold text-neutral-950">
            {dup.count} other account{dup.count === 1 ? '' : 's'} with a matching face
            {dup.items.length < dup.count ? ` (closest ${dup.items.length} shown)` : ''}
          </h3>
          <ul className="grid grid-cols-1 gap-3 md:grid-cols-2">
            {dup.items.map((d) => (
              <FacePair
                key={d.verification_id}
                own={c.ownSelfie}
                other={d.other}
                score={num(d.similarity_score)}
                verdict={`(threshold ${th})${d.verified_at ? `, verified ${dateTime(d.verified_at)}` : ''}`}
                label={d.external_id ?? shortId(d.verification_id)}
              />
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}

const v = (c: CaseView) => c.verification.mode;

/**
 * The decision pipeline over `pipeline_jobs` rows (written with the submit, in its transaction). Runners
 * (the in-process poll, or Inngest) call these functions; each is idempotent and safe on several servers:
 *  - a job is claimed with FOR UPDATE SKIP LOCKED and a lease, so two runners never work on it at once and
 *    a runner killed mid-job leaves it to be claimed again when the lease ends;
 *  - the decision is applied with a conditional update on the verification's status and attempt, so a job
 *    finished twice (a lease that ran out mid-work) decides once.
 * An error is retried (MAX_TRIES, with back-off); after the last try the submission gets
 * `processing_error` (resubmission, safe to retry), or `max_attempts_exceeded` after the 5th attempt.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '@/lib/db/client';
import { media, pipelineJobs, verifications, workspaces } from '@/lib/db/schema';
import { audit } from '../audit/audit';
import { dropQueryParams, log, scrubText } from '../../core/log';
import { env } from '../../core/env';
import { mediaStore } from '../media/storage';
import { currentAnalysis } from '../media/current-analysis';
import { latestChallenge } from '../liveness/challenge';
import { cosine } from '../faces/similarity';
import type { FaceMeasure } from '../media/types';
import { openRead, readCode } from '../documents/read';
import { applyTransition, type Trigger } from '../transitions/state-machine';
import { enqueueTransitionWebhook } from '../webhooks/outbox';
import { ATTEMPTS_EXHAUSTED_REASON, attemptsExhausted, needsDocument, STEP_UP_REASON } from '../transitions/policy';
import {
  blocklistMatch,
  closestOtherCapture,
  findDuplicates,
  NOT_CHECKED,
  rememberFace,
  tuneSearch,
  type DuplicateCheck,
} from '../duplicates';
import { decide, type Decision, type DocumentRead, type Evidence } from './decide';
import { PROCESSING_ERROR_KEY } from './checks/list';
import { metrics, secondsSince } from '../../core/observability/metrics';
import { inJobSpan, inSpan } from '../../core/observability/tracing';

export const MAX_TRIES = 3;
export type Clock = () => Date;
export type PipelineDeps = { db: Db; clock?: Clock; leaseMs?: number; retryDelayMs?: (tries: number) => number };

type Job = typeof pipelineJobs.$inferSelect;

const leaseMs = (d: PipelineDeps) => d.leaseMs ?? env().PIPELINE_LEASE_MS;
const now = (d: PipelineDeps) => (d.clock ?? (() => new Date()))();

/** Claims one due job (pending and due, or running with an expired lease); null when there is none. */
export async function claimJob(deps: PipelineDeps, filter?: { verificationId?: string }): Promise<Job | null> {
  const t = now(deps);
  const lease = new Date(t.getTime() + leaseMs(deps));
  const due = sql`(
      select id from pipeline_jobs
      where ((status = 'pending' and run_after <= ${t.toISOString()}) or (status = 'running' and lease_until < ${t.toISOString()}))
        ${filter?.verificationId ? sql`and verification_id = ${filter.verificationId}` : sql``}
      order by run_after
      limit 1
      for update skip locked
    )`;
  const [job] = await deps.db
    .update(pipelineJobs)
    .set({ status: 'running', tries: sql`${pipelineJobs.tries} + 1`, leaseUntil: lease, updatedAt: t })
    .where(eq(pipelineJobs.id, due))
    .returning();
  if (job) metrics().pipelineJobWait.observe(Math.max(0, (t.getTime() - job.runAfter.getTime()) / 1000));
  return job ?? null;
}

/**
 * One stage of a decision, timed (`pipeline_stage_duration_seconds{stage}`) and, inside a trace, a span of its own
 * (docs/operating.md "Metrics").
 */
async function stage<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await inSpan(`pipeline ${name}`, {}, fn);
  } finally {
    metrics().pipelineStage.observe({ stage: name }, secondsSince(started));
  }
}

/** Runs due jobs until none is left or `limit` is reached; returns how many it finished. */
export async function runDueJobs(deps: PipelineDeps, limit = 10): Promise<number> {
  let n = 0;
  while (n < limit) {
    const job = await claimJob(deps);
    if (!job) break;
    await processJob(deps, job);
    n++;
  }
  return n;
}

/** The Inngest entry point: process the pending job of one verification, if any is due. */
export async function processSubmission(
  deps: PipelineDeps,
  verificationId: string,
): Promise<{ status: string } | null> {
  const job = await claimJob(deps, { verificationId });
  if (!job) return null;
  return processJob(deps, job);
}

type VerificationRow = typeof verifications.$inferSelect;
type WorkspaceRow = typeof workspaces.$inferSelect;
type MediaRow = typeof media.$inferSelect;
type Gathered = { evidence: Evidence; duplicateCheck: DuplicateCheck; selfie: FaceMeasure | null };

/** The evidence of one submission: the selfie, the active-liveness challenge, the duplicate searches, the document. */
async function gather(deps: PipelineDeps, job: Job, v: VerificationRow, ws: WorkspaceRow): Promise<Gathered> {
  const { get, selfieRow, selfie } = await loadSelfie(deps.db, job);
  const evidence: Evidence = {
    activeLiveness: await activeLivenessEvidence(deps.db, v, ws, selfieRow, selfie),
    flow: v.flow,
    checkMethod: v.checkMethod,
    stepUp: v.stepUp,
    estimationFallback: ws.estimationFallback,
    ageThreshold: ws.ageThreshold,
    selfie,
    blocklist: null,
    blocklistThreshold: ws.duplicateThreshold,
    otherCapture: null,
  };
  const embedding = selfie?.embedding;
  const duplicateCheck = embedding
    ? await stage('duplicates', () => searchDuplicates(deps.db, v, ws, embedding, evidence))
    : NOT_CHECKED;
  if (needsDocument(v)) evidence.document = await stage('document_read', () => readDocument(deps, get));
  return { evidence, duplicateCheck, selfie };
}

/**
 * The submitted media rows, and the selfie's face. The analysis made at upload is used as is (made again if an
 * older model made it); the stored bytes are read (and so checked) for every medium.
 */
async function loadSelfie(
  db: Db,
  job: Job,
): Promise<{ get: (k: string) => MediaRow | undefined; selfieRow: MediaRow; selfie: FaceMeasure | null }> {
  const rows = await db
    .select()
    .from(media)
    .where(inArray(media.id, Object.values(job.mediaIds)));
  const byId = new Map(rows.map((r) => [r.id, r]));
  const get = (k: string) => (job.mediaIds[k] ? byId.get(job.mediaIds[k]) : undefined);
  const selfieRow = get('selfie');
  if (!selfieRow) throw new Error('submitted selfie missing');
  const selfieBytes = await mediaStore.get(db, selfieRow.id);
  if (!selfieBytes) throw new Error('submitted selfie bytes missing');
  const selfieAnalysis = await currentAnalysis(db, selfieRow, selfieBytes);
  return { get, selfieRow, selfie: selfieAnalysis?.faces?.[0] ?? null };
}

/** Active liveness: required for a selfie taken on the hosted page when the workspace asks for it. */
async function activeLivenessEvidence(
  db: Db,
  v: VerificationRow,
  ws: WorkspaceRow,
  selfieRow: MediaRow,
  selfie: FaceMeasure | null,
): Promise<Evidence['activeLiveness']> {
  const challenge = await latestChallenge(db, v.id);
  return {
    required: ws.requireActiveLiveness && selfieRow.source === 'capture',
    challenge: challenge?.outcome ?? null,
    selfieSimilarity:
      challenge?.embedding && selfie?.embedding
        ? Math.round(cosine(challenge.embedding, selfie.embedding) * 10000) / 10000
        : null,
    selfieAfterChallengeMs: challenge?.completedAt
      ? selfieRow.createdAt.getTime() - challenge.completedAt.getTime()
      : null,
  };
}

/** The blocklist and the closest other capture (into `evidence`), and the duplicate check unless the workspace allows duplicates. */
async function searchDuplicates(
  db: Db,
  v: VerificationRow,
  ws: WorkspaceRow,
  embedding: number[],
  evidence: Evidence,
): Promise<DuplicateCheck> {
  const scope = { workspaceId: v.workspaceId, mode: v.mode, embedding };
  evidence.blocklist = await blocklistMatch(db, scope);
  return db.transaction(async (tx) => {
    await tuneSearch(tx);
    evidence.otherCapture = await closestOtherCapture(tx, { ...scope, verificationId: v.id });
    if (ws.allowDuplicates) return NOT_CHECKED;
    return findDuplicates(tx, {
      ...scope,
      verificationId: v.id,
      externalId: v.externalId,
      threshold: ws.duplicateThreshold,
    });
  });
}

/** The document's evidence: its portrait, and what its MRZ or barcode says. */
async function readDocument(
  deps: PipelineDeps,
  get: (k: string) => MediaRow | undefined,
): Promise<NonNullable<Evidence['document']>> {
  const db = deps.db;
  const front = get('document_front');
  const back = get('document_back');
  if (!front) throw new Error('submitted document front missing');
  const type = (front.documentType ?? 'id_card') as 'passport' | 'id_card' | 'driving_licence';
  const frontBytes = await mediaStore.get(db, front.id);
  if (!frontBytes) throw new Error('submitted document bytes missing');
  const frontAnalysis = await currentAnalysis(db, front, frontBytes);
  // The side carrying the MRZ or barcode was read at upload and its read kept (sealed): decided from it without
  // reading again. An upload from before reads were kept is read here, by the same reader.
  const coded = type === 'passport' ? front : back;
  let read: DocumentRead = null;
  if (coded) {
    read = await openRead(db, coded);
    if (!read) {
      const bytes = coded === front ? frontBytes : await mediaStore.get(db, coded.id);
      if (!bytes) throw new Error('submitted document back bytes missing');
      const box =
        coded === front ? frontAnalysis?.document?.box : (await currentAnalysis(db, coded, bytes))?.document?.box;
      read = await readCode(bytes, type, box);
    }
  }
  return { type, portrait: frontAnalysis?.faces?.[0] ?? null, read };
}

const TRIGGER: Record<'approve' | 'decline' | 'resubmit' | 'review', Trigger> = {
  approve: 'pipeline_approve',
  decline: 'pipeline_decline',
  resubmit: 'pipeline_resubmit',
  review: 'pipeline_review',
};

/**
 * Decides one claimed job. Never throws for a job's own failure: it is retried or becomes processing_error.
 * While it runs, its lease is renewed a third of the way through each lease, so leases can be short: a runner
 * that dies stops renewing, and its job is taken over within one lease (under either runner).
 */
export async function processJob(deps: PipelineDeps, job: Job): Promise<{ status: string }> {
  const ms = leaseMs(deps);
  const renew = setInterval(
    () => {
      deps.db
        .update(pipelineJobs)
        .set({ leaseUntil: new Date(now(deps).getTime() + ms) })
        .where(and(eq(pipelineJobs.id, job.id), eq(pipelineJobs.status, 'running')))
        .catch((e) => log.warn('pipeline lease renewal failed', { err: e, job: job.id }));
    },
    Math.max(50, Math.floor(ms / 3)),
  );
  renew.unref();
  const started = performance.now();
  try {
    // The trace of the submit that wrote the job goes on here, whichever runner took it and however much later.
    const attributes = {
      'open_verify.job': 'decide-submission',
      'open_verify.verification_id': job.verificationId,
      'open_verify.attempt': job.attempt,
      'open_verify.tries': job.tries,
    };
    return await inJobSpan('decide-submission', job.traceparent, attributes, async (span) => {
      const out = await decideJob(deps, job);
      span?.setAttribute('open_verify.status', out.status);
      return out;
    });
  } finally {
    clearInterval(renew);
    metrics().pipelineStage.observe({ stage: 'total' }, secondsSince(started));
  }
}

/** One claimed job, start to end: the verification still waiting for it, its evidence and decision, the outcome applied. */
async function decideJob(deps: PipelineDeps, job: Job): Promise<{ status: string }> {
  const v = await submissionOf(deps, job);
  if (!v.waiting) return { status: v.status };
  const [ws] = await deps.db.select().from(workspaces).where(eq(workspaces.id, v.row.workspaceId));
  const evaluated = await evaluate(deps, job, v.row, ws);
  if (evaluated === 'retrying') return { status: 'retrying' };
  const { decision, duplicateCheck, selfie } = evaluated;
  const { outcome, reason, stepUp } = finalOutcome(v.row, decision);
  const t = now(deps);
  const recorded = await stage('record', () =>
    record(deps, job, v.row, { decision, outcome, reason, stepUp, duplicateCheck, selfie, t }),
  );
  if (recorded.decided)
    log.info('verification decided', {
      verification_id: v.row.id,
      attempt: job.attempt,
      status: recorded.status,
      reason,
    });
  return { status: recorded.status };
}

/** The verification, if it still waits for this job; otherwise the job is done (decided by an earlier run, or superseded). */
async function submissionOf(
  deps: PipelineDeps,
  job: Job,
): Promise<{ waiting: true; row: VerificationRow } | { waiting: false; status: string }> {
  const [v] = await deps.db.select().from(verifications).where(eq(verifications.id, job.verificationId));
  if (v && v.status === 'submitted' && v.attemptsUsed === job.attempt) return { waiting: true, row: v };
  await deps.db
    .update(pipelineJobs)
    .set({ status: 'done', leaseUntil: null, updatedAt: now(deps) })
    .where(eq(pipelineJobs.id, job.id));
  return { waiting: false, status: v?.status ?? 'missing' };
}

/**
 * The evidence and what the checks decide of it. A failure is retried (the job back to pending, with back-off)
 * until MAX_TRIES, then decided as `processing_error`.
 */
async function evaluate(
  deps: PipelineDeps,
  job: Job,
  v: VerificationRow,
  ws: WorkspaceRow,
): Promise<{ decision: Decision; duplicateCheck: DuplicateCheck; selfie: FaceMeasure | null } | 'retrying'> {
  let g: Gathered | undefined;
  try {
    g = await stage('evidence', () => gather(deps, job, v, ws));
    const decision = decide(g.evidence, now(deps), (check, seconds) =>
      metrics().pipelineStage.observe({ stage: check }, seconds),
    );
    return { decision, duplicateCheck: g.duplicateCheck, selfie: g.selfie };
  } catch (e) {
    // Kept in the job and the audit trail: never the values a failed query bound (an embedding, a name).
    const message = scrubText(dropQueryParams(e instanceof Error ? e.message : String(e)));
    log.warn('pipeline job failed', { job: job.id, tries: job.tries, err: message });
    if (job.tries < MAX_TRIES) {
      const delay = deps.retryDelayMs?.(job.tries) ?? 2000 * 2 ** (job.tries - 1);
      await deps.db
        .update(pipelineJobs)
        .set({
          status: 'pending',
          runAfter: new Date(now(deps).getTime() + delay),
          leaseUntil: null,
          lastError: message,
          updatedAt: now(deps),
        })
        .where(and(eq(pipelineJobs.id, job.id), eq(pipelineJobs.tries, job.tries)));
      return 'retrying';
    }
    return {
      decision: {
        outcome: 'resubmit',
        reason: 'processing_error',
        result: null,
        checks: { [PROCESSING_ERROR_KEY]: message },
      },
      duplicateCheck: g?.duplicateCheck ?? NOT_CHECKED,
      selfie: g?.selfie ?? null,
    };
  }
}

/** The outcome after the attempts rule: a step-up needs an attempt left, and a resubmission after the last attempt is a decline. */
function finalOutcome(
  v: VerificationRow,
  decision: Decision,
): { outcome: Decision['outcome']; reason: string | null; stepUp: 'document' | null } {
  let { outcome, reason } = decision;
  let stepUp: 'document' | null = null;
  if (outcome === 'resubmit' && reason === STEP_UP_REASON) {
    // The step-up to a document (docs/api.md "Step-up to a document") needs an attempt to send the document in.
    // After the 5th there is none: the estimate that could not decide goes to a person, as under `review`,
    // rather than being declined for attempts it never had.
    if (attemptsExhausted(v)) [outcome, reason] = ['review', null];
    else stepUp = 'document';
  }
  if (outcome === 'resubmit' && attemptsExhausted(v)) {
    outcome = 'decline';
    reason = ATTEMPTS_EXHAUSTED_REASON;
  }
  return { outcome, reason, stepUp };
}

type Decided = {
  decision: Decision;
  outcome: Decision['outcome'];
  reason: string | null;
  stepUp: 'document' | null;
  duplicateCheck: DuplicateCheck;
  selfie: FaceMeasure | null;
  t: Date;
};

/** The decision, applied once: the status move and its webhook event, the face for later duplicate searches, the audit entry. */
async function record(
  deps: PipelineDeps,
  job: Job,
  v: VerificationRow,
  d: Decided,
): Promise<{ status: string; decided: boolean }> {
  const { decision, outcome, reason, stepUp, duplicateCheck, selfie, t } = d;
  return deps.db.transaction(async (tx) => {
    const [locked] = await tx.select().from(verifications).where(eq(verifications.id, v.id)).for('update');
    if (locked.status !== 'submitted' || locked.attemptsUsed !== job.attempt) {
      await tx
        .update(pipelineJobs)
        .set({ status: 'done', leaseUntil: null, updatedAt: t })
        .where(eq(pipelineJobs.id, job.id));
      return { status: locked.status, decided: false };
    }
    // This attempt's face joins the duplicate search (one row per verification: its latest attempt).
    if (selfie?.embedding) await rememberFace(tx, v, selfie.embedding, t);
    const moved = await applyTransition(tx, {
      verificationId: v.id,
      trigger: TRIGGER[outcome],
      now: t,
      patch: { reason, result: decision.result, duplicateCheck, ...(stepUp ? { stepUp } : {}) },
    });
    await enqueueTransitionWebhook(tx, moved);
    const { row } = moved;
    await tx
      .update(pipelineJobs)
      .set({
        status: 'done',
        leaseUntil: null,
        lastError: decision.reason === 'processing_error' ? String(decision.checks.error) : null,
        updatedAt: t,
      })
      .where(eq(pipelineJobs.id, job.id));
    await audit(tx, {
      workspaceId: v.workspaceId,
      verificationId: v.id,
      actor: 'pipeline',
      action: 'verification.decided',
      data: { attempt: job.attempt, status: row.status, reason, checks: decision.checks },
    });
    return { status: row.status, decided: true };
  });
}

/**
 * Everything a reviewer needs to decide one case, read in a handful of queries: the verification and its
 * workspace's thresholds, consent, every upload with its checks, the pipeline's evidence, duplicates and
 * blocklist matches with the other accounts' selfies, the audit trail and the webhook events, and the
 * neighbouring cases of its queue. NOT_FOUND unless the actor may read the workspace.
 */
import { receiptOf } from '../retention/receipts';
import { and, asc, desc, eq, inArray } from 'drizzle-orm';
import {
  adminUsers,
  auditLog,
  blocklistEntries,
  consentRecords,
  media,
  pipelineJobs,
  verifications,
  workspaces,
} from '@/lib/db/schema';
import type { DbOrTx } from '@/lib/db/client';
import { notFound } from '../../core/errors';
import { UUID_RE } from '../../core/ids';
import { attemptsRemaining, submittedMedia } from '../transitions/policy';
import { listWebhookEvents } from '../webhooks/list';
import type { DuplicateCheck } from '../duplicates';
import { actorId, assertCan, can, type Actor } from './access';
import { mediaLink } from './media-links';
import { queueNeighbours } from './queue';
import { audit } from '../audit/audit';
import { dataKeyRows, keyOpener, openAuditData, openVerification } from '../personal-data/personal';

export type CasePhoto = {
  mediaId: string;
  kind: 'selfie' | 'document_front' | 'document_back';
  documentType: string | null;
  url: string;
  createdAt: Date;
  width: number;
  height: number;
};

/** Upload analysis as stored (lib/domain/verifications/media-upload.ts): the checks with value and threshold, plus face measures. */
type StoredAnalysis = {
  checks?: Record<string, { value: unknown; threshold?: unknown; passed: boolean }>;
  faces?: {
    age?: number | null;
    live?: number | null;
    real?: number | null;
    replay_score?: number | null;
    score?: number;
  }[];
} | null;

const kindOf = (m: { type: string; side: string | null }) =>
  (m.type === 'selfie' ? 'selfie' : m.side === 'back' ? 'document_back' : 'document_front') as CasePhoto['kind'];

/** The newest selfie of each verification (for duplicates and blocklist matches shown side by side). */
async function selfiesOf(db: DbOrTx, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectDistinctOn([media.verificationId], { verificationId: media.verificationId, id: media.id })
    .from(media)
    .where(and(inArray(media.verificationId, ids), eq(media.type, 'selfie')))
    .orderBy(media.verificationId, desc(media.createdAt));
  return new Map(rows.map((r) => [r.verificationId, r.id]));
}

export async function loadCase(db: DbOrTx, actor: Actor, id: string, now = new Date()) {
  const vid = String(id).toLowerCase();
  if (!UUID_RE.test(vid)) throw notFound('Verification');
  const [row] = await db
    .select({ v: verifications, ws: workspaces })
    .from(verifications)
    .innerJoin(workspaces, eq(workspaces.id, verifications.workspaceId))
    .where(eq(verifications.id, vid));
  if (!row) throw notFound('Verification');
  assertCan(actor, 'case.read', row.v.workspaceId, 'Verification');
  const { ws } = row;

  const [keys, consents, uploads, trail, jobs, webhooks, neighbours, blocked] = await Promise.all([
    dataKeyRows(db, [vid]),
    db
      .select()
      .from(consentRecords)
      .where(eq(consentRecords.verificationId, vid))
      .orderBy(asc(consentRecords.acceptedAt)),
    db
      .select({
        id: media.id,
        type: media.type,
        side: media.side,
        documentType: media.documentType,
        createdAt: media.createdAt,
        width: media.width,
        height: media.height,
        byteSize: media.byteSize,
        analysis: media.analysis,
      })
      .from(media)
      .where(eq(media.verificationId, vid))
      .orderBy(desc(media.createdAt)),
    db
      .select()
      .from(auditLog)
      .where(eq(auditLog.verificationId, vid))
      .orderBy(asc(auditLog.createdAt), asc(auditLog.id))
      .limit(1000),
    db
      .select({
        attempt: pipelineJobs.attempt,
        mediaIds: pipelineJobs.mediaIds,
        status: pipelineJobs.status,
        tries: pipelineJobs.tries,
        lastError: pipelineJobs.lastError,
      })
      .from(pipelineJobs)
      .where(eq(pipelineJobs.verificationId, vid))
      .orderBy(asc(pipelineJobs.attempt)),
    listWebhookEvents(db, vid),
    queueNeighbours(db, row.v),
    db
      .select({ id: blocklistEntries.id, createdAt: blocklistEntries.createdAt, createdBy: blocklistEntries.createdBy })
      .from(blocklistEntries)
      .where(eq(blocklistEntries.verificationId, vid)),
  ]);
  // Its personal fields (the metadata, the person and document on the result, notes in the trail), opened with
  // its data key for this view (lib/domain/personal-data/personal.ts).
  const key = keyOpener(keys)(vid);
  const v = openVerification(row.v, key);

  // Erased (retention, the API, the CLI or an admin): the signed receipt, as the API returns it.
  const receipt = v.dataErasedAt ? await receiptOf(db, v.id) : null;

  // What is decided on: the newest upload of each kind (what a submit hands to the pipeline).
  const current = submittedMedia(uploads);
  const photos: CasePhoto[] = uploads
    .filter((m) => !v.dataErasedAt && Object.values(current).includes(m.id))
    .map((m) => ({
      mediaId: m.id,
      kind: kindOf(m),
      documentType: m.documentType,
      url: mediaLink(actor, m.id, now),
      createdAt: m.createdAt,
      width: m.width,
      height: m.height,
    }))
    .sort(
      (a, b) =>
        ['selfie', 'document_front', 'document_back'].indexOf(a.kind) -
        ['selfie', 'document_front', 'document_back'].indexOf(b.kind),
    );

  const decisions = trail.filter((e) => e.action === 'verification.decided');
  const pipelineRuns = decisions
    .filter((e) => e.actor === 'pipeline')
    .map((e) => ({
      at: e.createdAt,
      data: (e.data ?? {}) as {
        attempt?: number;
        status?: string;
        reason?: string | null;
        checks?: Record<string, unknown>;
      },
    }));
  const lastPipeline = pipelineRuns[pipelineRuns.length - 1] ?? null;

  // Duplicates and the blocklist entry that matched: the other side's selfie, when it may be shown.
  const dup = (v.duplicateCheck ?? null) as DuplicateCheck | null;
  const matchedEntryId =
    typeof lastPipeline?.data.checks?.blocklist_entry === 'string' ? lastPipeline.data.checks.blocklist_entry : null;
  const [entry] = matchedEntryId
    ? await db.select().from(blocklistEntries).where(eq(blocklistEntries.id, matchedEntryId))
    : [];
  const otherIds = [...(dup?.duplicates ?? []).map((d) => d.verification_id), ...(entry ? [entry.verificationId] : [])];
  const others = otherIds.length
    ? await db
        .select({
          id: verifications.id,
          workspaceId: verifications.workspaceId,
          status: verifications.status,
          externalId: verifications.externalId,
        })
        .from(verifications)
        .where(inArray(verifications.id, otherIds))
    : [];
  const visible = others.filter((o) => can(actor, 'case.read', o.workspaceId));
  const selfies = await selfiesOf(
    db,
    visible.map((o) => o.id),
  );
  const other = (vid2: string) => {
    const o = visible.find((x) => x.id === vid2);
    const selfie = selfies.get(vid2);
    return o
      ? {
          id: o.id,
          status: o.status,
          externalId: o.externalId,
          selfieUrl: selfie ? mediaLink(actor, selfie, now) : null,
        }
      : null;
  };
  const ownSelfie = photos.find((p) => p.kind === 'selfie')?.url ?? null;

  // Admins named in the trail, by email.
  const adminIds = [
    ...new Set(
      trail
        .map((e) => e.actor)
        .filter((a) => a.startsWith('admin:'))
        .map((a) => a.slice(6)),
    ),
  ];
  const admins = adminIds.length
    ? await db
        .select({ id: adminUsers.id, email: adminUsers.email })
        .from(adminUsers)
        .where(inArray(adminUsers.id, adminIds))
    : [];
  const emailOf = new Map(admins.map((a) => [`admin:${a.id}`, a.email]));

  return {
    verification: v,
    workspace: {
      id: ws.id,
      name: ws.name,
      ageThreshold: ws.ageThreshold,
      duplicateThreshold: ws.duplicateThreshold,
      allowDuplicates: ws.allowDuplicates,
    },
    attemptsRemaining: attemptsRemaining(v),
    consents,
    uploads: uploads.map((m) => ({
      ...m,
      kind: kindOf(m),
      analysis: m.analysis as StoredAnalysis,
      current: Object.values(current).includes(m.id),
    })),
    photos,
    ownSelfie,
    pipelineRuns,
    jobs,
    duplicates: dup
      ? {
          checked: dup.checked,
          count: dup.duplicate_count,
          items: dup.duplicates.map((d) => ({ ...d, other: other(d.verification_id) })),
        }
      : null,
    blocklistMatch: entry
      ? {
          entryId: entry.id,
          similarity: Number(lastPipeline?.data.checks?.blocklist_similarity ?? NaN),
          other: other(entry.verificationId),
        }
      : null,
    blocklisted: blocked,
    trail: trail.map((e) => ({ ...e, data: openAuditData(e, () => key), who: emailOf.get(e.actor) ?? e.actor })),
    webhooks,
    neighbours,
    erasure: v.dataErasedAt ? { at: v.dataErasedAt, receipt } : null,
    can: {
      decide: can(actor, 'case.decide', v.workspaceId),
      blocklistAdd: can(actor, 'blocklist.add', v.workspaceId),
      blocklistRemove: can(actor, 'blocklist.remove', v.workspaceId),
      erase: can(actor, 'case.erase', v.workspaceId),
    },
  };
}
export type CaseView = Awaited<ReturnType<typeof loadCase>>;

/** Every opening of a case is in the audit log, with who opened it. */
export async function auditCaseView(db: DbOrTx, actor: Actor, c: CaseView) {
  await audit(db, {
    workspaceId: c.verification.workspaceId,
    verificationId: c.verification.id,
    actor: actorId(actor),
    action: 'verification.viewed',
  });
}

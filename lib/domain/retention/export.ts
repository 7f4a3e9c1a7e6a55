/**
 * Subject access (GDPR art. 15, and BIPA's disclosure duties): everything this service holds about one
 * verification, as one JSON bundle with its photos, for an operator to answer a data subject's request
 * (`npm run ops -- verification:export`; later the admin area). Read with the keys the service holds: photos and
 * personal fields decrypted, the face embedding as numbers. Every export is audited.
 */
import { and, asc, eq, inArray } from 'drizzle-orm';
import {
  auditLog,
  blocklistEntries,
  consentRecords,
  dataKeys,
  faceEmbeddings,
  livenessChallenges,
  livenessFrames,
  media,
  pipelineJobs,
  verifications,
  webhookAttempts,
  webhookEvents,
  workspaces,
} from '@/lib/db/schema';
import type { Db } from '@/lib/db/client';
import { notFound } from '../../core/errors';
import { UUID_RE } from '../../core/ids';
import { audit } from '../audit/audit';
import { env } from '../../core/env';
import { DataKeyDestroyedError } from '../personal-data/data-keys';
import { openMedia, readSealedMedia } from '../media/storage';
import { serializeVerification } from '../verifications/serialize';
import { keyOpener, openAuditData, openVerificationWith } from '../personal-data/personal';
import { openWebhookEvent, openWebhookResponse } from '../webhooks/list';
import { receiptOf } from './receipts';
import { log } from '../../core/log';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export async function exportVerification(db: Db, input: { verificationId: string; actor: string; requestId?: string }) {
  const id = input.verificationId.toLowerCase();
  if (!UUID_RE.test(id)) throw notFound('Verification');
  const [v] = await db.select().from(verifications).where(eq(verifications.id, id));
  if (!v) throw notFound('Verification');
  const [ws] = await db
    .select({ id: workspaces.id, name: workspaces.name, retentionDays: workspaces.mediaRetentionDays })
    .from(workspaces)
    .where(eq(workspaces.id, v.workspaceId));
  const [key] = await db.select().from(dataKeys).where(eq(dataKeys.verificationId, v.id));
  const consents = await db
    .select()
    .from(consentRecords)
    .where(eq(consentRecords.verificationId, v.id))
    .orderBy(asc(consentRecords.acceptedAt));
  const full = openVerificationWith(v, key);
  const open = keyOpener(new Map(key ? [[v.id, key]] : []));

  const mediaRows = await db.select().from(media).where(eq(media.verificationId, v.id)).orderBy(asc(media.createdAt));
  const photos = [];
  for (const m of mediaRows) {
    const sealed = await readSealedMedia(db, m.id);
    let bytes: Buffer | null = null;
    if (sealed) {
      try {
        bytes = openMedia(sealed);
      } catch (e) {
        if (!(e instanceof DataKeyDestroyedError)) throw e;
      }
    }
    photos.push({
      id: m.id,
      type: m.type,
      side: m.side,
      document_type: m.documentType,
      content_type: m.contentType,
      byte_size: m.byteSize,
      width: m.width,
      height: m.height,
      created_at: iso(m.createdAt),
      analysis: m.analysis,
      photo_base64: bytes ? bytes.toString('base64') : null,
    });
  }
  const [face] = await db.select().from(faceEmbeddings).where(eq(faceEmbeddings.verificationId, v.id));
  const blocked = await db.select().from(blocklistEntries).where(eq(blocklistEntries.verificationId, v.id));
  const events = await db
    .select()
    .from(webhookEvents)
    .where(eq(webhookEvents.verificationId, v.id))
    .orderBy(asc(webhookEvents.createdAt));
  const attempts = events.length
    ? await db
        .select()
        .from(webhookAttempts)
        .where(
          inArray(
            webhookAttempts.eventId,
            events.map((e) => e.id),
          ),
        )
        .orderBy(asc(webhookAttempts.attempt))
    : [];
  const jobs = await db
    .select()
    .from(pipelineJobs)
    .where(eq(pipelineJobs.verificationId, v.id))
    .orderBy(asc(pipelineJobs.attempt));
  // The hosted page's head-turn challenges: the poses asked for, what the server measured, and the face
  // descriptions of the challenge and of each frame it received (kept until the erasure, which deletes the frames'
  // and empties the challenge's).
  const challenges = await db
    .select()
    .from(livenessChallenges)
    .where(eq(livenessChallenges.verificationId, v.id))
    .orderBy(asc(livenessChallenges.issuedAt));
  const frames = challenges.length
    ? await db
        .select()
        .from(livenessFrames)
        .where(
          inArray(
            livenessFrames.challengeId,
            challenges.map((c) => c.id),
          ),
        )
        .orderBy(asc(livenessFrames.createdAt))
    : [];
  const trail = await db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.verificationId, v.id)))
    .orderBy(asc(auditLog.createdAt));

  const bundle = {
    format: 'open-verify/subject-access-export',
    version: 1,
    issuer: env().BASE_URL,
    generated_at: new Date().toISOString(),
    workspace: { id: ws.id, name: ws.name, media_retention_days: ws.retentionDays },
    verification: serializeVerification(full, consents.at(-1)),
    consent_records: consents.map((c) => ({
      id: c.id,
      consent_version_id: c.consentVersionId,
      version: c.version,
      text_sha256: c.textSha256,
      accepted_at: iso(c.acceptedAt),
    })),
    media: photos,
    face_embedding: face ? { account: face.account, created_at: iso(face.createdAt), embedding: face.embedding } : null,
    liveness_challenges: challenges.map((c) => ({
      id: c.id,
      steps: c.steps,
      issued_at: iso(c.issuedAt),
      expires_at: iso(c.expiresAt),
      completed_at: iso(c.completedAt),
      outcome: c.outcome,
      embedding: c.embedding,
      frames: frames
        .filter((f) => f.challengeId === c.id)
        .map((f) => ({ sha256: f.sha256, created_at: iso(f.createdAt), embedding: f.embedding })),
    })),
    blocklist_entries: blocked.map((b) => ({
      id: b.id,
      created_by: b.createdBy,
      created_at: iso(b.createdAt),
      embedding: b.embedding,
    })),
    pipeline_jobs: jobs.map((j) => ({
      id: j.id,
      attempt: j.attempt,
      status: j.status,
      media_ids: j.mediaIds,
      tries: j.tries,
      last_error: j.lastError,
      created_at: iso(j.createdAt),
    })),
    webhook_events: events.map((e) => ({
      id: e.id,
      status: e.status,
      state: e.state,
      created_at: iso(e.createdAt),
      body: openWebhookEvent(e, open(v.id)),
      attempts: attempts
        .filter((a) => a.eventId === e.id)
        .map((a) => ({
          attempt: a.attempt,
          url: a.url,
          started_at: iso(a.startedAt),
          status_code: a.statusCode,
          outcome: a.outcome,
          error: a.error,
          response_body: openWebhookResponse(a, open(v.id)),
        })),
    })),
    audit_log: trail.map((a) => ({
      id: a.id,
      actor: a.actor,
      action: a.action,
      created_at: iso(a.createdAt),
      data: openAuditData(a, open),
    })),
    erasure_receipt: await receiptOf(db, v.id),
  };
  const exported = photos.filter((p) => p.photo_base64).length;
  await audit(db, {
    workspaceId: v.workspaceId,
    verificationId: v.id,
    actor: input.actor,
    requestId: input.requestId,
    action: 'verification.exported',
    data: { photos: exported },
  });
  log.info('verification exported', { verification_id: v.id, actor: input.actor, media_exported: exported });
  return bundle;
}

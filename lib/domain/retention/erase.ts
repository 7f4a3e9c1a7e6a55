/**
 * Erasing a verification's data: the one function behind the retention sweep, DELETE /v1/verifications/{id}/data,
 * the CLI and the admin area. For verifications the caller has locked, in its transaction, set-based (a batch is
 * a dozen statements whatever its size). Everything personal was written under the data key
 * (lib/domain/personal-data/personal.ts), so destroying the key is what erases it everywhere a copy went; the
 * decision, its audit trail and consent record are kept. The full list of what goes and what stays:
 * docs/architecture.md "Notes behind the code", docs/privacy.md.
 * A case still in progress becomes `abandoned`. Each erasure writes a signed receipt (receipts.ts) and an audit
 * entry, in the same transaction as the erasure itself.
 */
import { sql, type SQL } from 'drizzle-orm';
import type { VerificationRow } from '@/lib/db/schema';
import type { DbOrTx } from '@/lib/db/client';
import { env } from '../../core/env';
import { afterCommit } from '@/lib/db/after-commit';
import { metrics } from '../../core/observability/metrics';
import { newId } from '../../core/ids';
import { unwrapDataKey, type DataKeyRow } from '../personal-data/data-keys';
import { aesGcmDecrypt } from '../../core/crypto/secretbox';
import { applyTransition } from '../transitions/state-machine';
import { enqueueTransitionWebhook } from '../webhooks/outbox';
import { ERASURE_ABANDONS } from '../transitions/policy';
import { redactWebhookBody } from '../webhooks/payload';
import { mergeResult, splitResult } from '../personal-data/result-fields';
import {
  canonicalJson,
  receiptKeysUrl,
  receiptSigner,
  signReceipt,
  type ErasedMedia,
  type Receipt,
  type SignedReceipt,
} from './receipts';

export type ErasureTarget = VerificationRow & { retentionDays?: number | null };
export type ErasureContext = { trigger: Receipt['trigger']; actor: string; requestId?: string; now: Date };

/**
 * What a verification still says after the erasure (the receipt's `kept.fields`; docs/receipts.md spells them
 * out): its id, external_id, mode, flow, status, reason, timestamps and attempts; the decision part of its
 * result; its duplicate check; its consent record; its audit trail; its media rows' type, side, size and pixels.
 */
export const KEPT_FIELDS = [
  'identifiers',
  'status',
  'reason',
  'timestamps',
  'attempts',
  'decision',
  'duplicate_check',
  'consent',
  'audit_trail',
  'media_metadata',
];

/** One text[] parameter for a list of ids (drizzle would expand an array into a list of parameters). */
export const textArray = (xs: string[]): SQL =>
  sql`${`{${xs.map((x) => `"${x.replace(/["\\]/g, '\\$&')}"`).join(',')}}`}::text[]`;

type MediaInfo = {
  id: string;
  verification_id: string;
  type: string;
  side: string | null;
  document_type: string | null;
  has_analysis: boolean;
  has_bytes: boolean;
};

export async function eraseLocked(tx: DbOrTx, targets: ErasureTarget[], ctx: ErasureContext): Promise<SignedReceipt[]> {
  if (targets.length === 0) return [];
  // Counted once the erasure has committed (`retention_erasures_total{trigger}`).
  await afterCommit(() => metrics().retentionErasures.inc({ trigger: ctx.trigger }, targets.length));
  const ids = textArray(targets.map((t) => t.id));
  const at = ctx.now.toISOString();

  // What there is, read before it goes.
  const media = Array.from(
    await tx.execute<MediaInfo>(sql`
      select m.id, m.verification_id, m.type, m.side, m.document_type, m.analysis is not null as has_analysis,
        exists (select 1 from media_blobs b where b.media_id = m.id) as has_bytes
      from media m where m.verification_id = any(${ids}) order by m.created_at, m.id`),
  );
  const keys = new Map(
    Array.from(
      await tx.execute<{ verification_id: string; kek_id: string; wrapped: Buffer }>(
        sql`select verification_id, kek_id, wrapped from data_keys where verification_id = any(${ids})`,
      ),
    ).map((r) => [
      r.verification_id,
      { verificationId: r.verification_id, kekId: r.kek_id, wrapped: r.wrapped } as DataKeyRow,
    ]),
  );
  const blocked = new Map(
    Array.from(
      await tx.execute<{ verification_id: string; n: number }>(
        sql`select verification_id, count(*)::int as n from blocklist_entries where verification_id = any(${ids}) group by verification_id`,
      ),
    ).map((r) => [r.verification_id, Number(r.n)]),
  );

  const tally = (vs: string[]) => vs.reduce((m, v) => m.set(v, (m.get(v) ?? 0) + 1), new Map<string, number>());

  // The result: the decision stays in the clear, the personal fields go (listed by path for the receipt).
  const results = targets.map((t) => {
    let personal: Record<string, unknown> | null = null;
    let unreadable = false;
    if (t.resultSealed) {
      const key = keys.get(t.id);
      try {
        personal = key
          ? JSON.parse(aesGcmDecrypt(t.resultSealed, `result:${t.id}`, unwrapDataKey(key)).toString('utf8'))
          : null;
      } catch {
        personal = null;
      }
      unreadable = personal === null;
    }
    const split = splitResult(mergeResult((t.result as Record<string, unknown> | null) ?? null, personal));
    return {
      id: t.id,
      result: split.kept,
      paths: unreadable ? [...split.personalPaths, '(sealed fields)'] : split.personalPaths,
    };
  });

  // The erasure.
  await tx.execute(
    sql`delete from media_blobs where media_id in (select id from media where verification_id = any(${ids}))`,
  );
  await tx.execute(sql`update media set analysis = null where verification_id = any(${ids}) and analysis is not null`);
  await tx.execute(
    sql`update media set read_sealed = null where verification_id = any(${ids}) and read_sealed is not null`,
  );
  const embeddings = new Set(
    Array.from(
      await tx.execute<{ verification_id: string }>(
        sql`delete from face_embeddings where verification_id = any(${ids}) returning verification_id`,
      ),
    ).map((r) => r.verification_id),
  );
  // The head-turn challenges' faces (issue #20): each frame's description (kept to spot frames replayed into
  // another verification) and the straight frame's, which the selfie was compared with.
  const frames = tally(
    Array.from(
      await tx.execute<{ verification_id: string }>(sql`
        delete from liveness_frames f using liveness_challenges c
        where f.challenge_id = c.id and c.verification_id = any(${ids})
        returning c.verification_id`),
    ).map((r) => r.verification_id),
  );
  const challengeFaces = new Set(
    Array.from(
      await tx.execute<{ verification_id: string }>(
        sql`update liveness_challenges set embedding = null where verification_id = any(${ids}) and embedding is not null returning verification_id`,
      ),
    ).map((r) => r.verification_id),
  );
  await tx.execute(sql`delete from data_keys where verification_id = any(${ids})`);
  await tx.execute(sql`
    update pipeline_jobs set status = 'done', lease_until = null, last_error = 'data erased', updated_at = ${at}::timestamptz
    where verification_id = any(${ids}) and status in ('pending', 'running')`);
  await tx.execute(sql`
    update verifications v set result = x.result, result_sealed = null, external_metadata = null, external_metadata_raw = null, external_metadata_sealed = null,
      data_erased_at = ${at}::timestamptz, updated_at = ${at}::timestamptz
    from jsonb_to_recordset(${JSON.stringify(results.map((r) => ({ id: r.id, result: r.result })))}::jsonb) as x(id text, result jsonb)
    where v.id = x.id`);

  // A case in progress ends: abandoned, its webhook built from the row as it is now (no metadata, data_erased_at).
  const finalStatus = new Map<string, string>();
  for (const t of targets) {
    if (!ERASURE_ABANDONS.has(t.status)) continue;
    const moved = await applyTransition(tx, { verificationId: t.id, trigger: 'data_erasure', now: ctx.now });
    await enqueueTransitionWebhook(tx, moved);
    finalStatus.set(t.id, moved.row.status);
  }

  // Stored webhook bodies and receivers' answers: the whole bodies (under the data key, noise from now on) go,
  // the bodies without the personal fields stay (a retry sends them); bodies an earlier version stored in the
  // clear are rewritten without them.
  const sealedBodies = Array.from(
    await tx.execute<{ verification_id: string }>(sql`
      update webhook_events set body_sealed = null, updated_at = ${at}::timestamptz
      where verification_id = any(${ids}) and body_sealed is not null
      returning verification_id`),
  ).map((r) => ({ v: r.verification_id }));
  const bodies = Array.from(
    await tx.execute<{ id: string; verification_id: string; body: string }>(
      sql`select id, verification_id, body from webhook_events where verification_id = any(${ids})`,
    ),
  );
  const rewritten = bodies
    .map((b) => ({ id: b.id, v: b.verification_id, body: redactWebhookBody(b.body) }))
    .filter((b): b is { id: string; v: string; body: string } => b.body !== null);
  if (rewritten.length) {
    await tx.execute(sql`
      update webhook_events e set body = x.body, updated_at = ${at}::timestamptz
      from json_to_recordset(${JSON.stringify(rewritten.map((r) => ({ id: r.id, body: r.body })))}::json) as x(id text, body text)
      where e.id = x.id`);
  }
  const answers = Array.from(
    await tx.execute<{ verification_id: string }>(sql`
      update webhook_attempts a set response_body = null, response_sealed = null
      from webhook_events e
      where a.event_id = e.id and e.verification_id = any(${ids}) and (a.response_body is not null or a.response_sealed is not null)
      returning e.verification_id`),
  );
  // Notes an earlier version wrote in the clear in the audit trail go too (newer ones are under the data key).
  await tx.execute(
    sql`update audit_log set data = data - 'note' where verification_id = any(${ids}) and data ? 'note' and data ->> 'note' is not null`,
  );
  const bodiesOf = tally([...sealedBodies, ...rewritten].map((r) => r.v));
  const answersOf = tally(answers.map((a) => a.verification_id));

  // Receipts and audit entries.
  const signer = await receiptSigner(tx);
  const base = env().BASE_URL;
  const signed: SignedReceipt[] = [];
  for (const [i, t] of targets.entries()) {
    // The sweep runs in the server's process: let requests in between every 50 signatures.
    if (i > 0 && i % 50 === 0) await new Promise((r) => setImmediate(r));
    const receipt: Receipt = {
      type: 'open-verify/erasure-receipt',
      version: 1,
      id: newId('rcp'),
      issuer: base,
      keys_url: receiptKeysUrl(),
      workspace_id: t.workspaceId,
      verification_id: t.id,
      external_id: t.externalId,
      mode: t.mode,
      status: finalStatus.get(t.id) ?? t.status,
      trigger: ctx.trigger,
      requested_by: ctx.actor,
      decided_at: t.completedAt ? t.completedAt.toISOString() : null,
      retention_days: ctx.trigger === 'retention' ? (t.retentionDays ?? null) : null,
      erased_at: at,
      erased: {
        media: media
          .filter((m) => m.verification_id === t.id)
          .map((m): ErasedMedia => ({
            id: m.id,
            type: m.type,
            side: m.side,
            document_type: m.document_type,
            bytes: m.has_bytes,
            analysis: m.has_analysis,
          })),
        face_embedding: embeddings.has(t.id),
        liveness_faces: (frames.get(t.id) ?? 0) + (challengeFaces.has(t.id) ? 1 : 0),
        data_key: keys.has(t.id),
        result_fields: results.find((r) => r.id === t.id)!.paths,
        external_metadata:
          t.externalMetadataSealed != null || t.externalMetadata != null || t.externalMetadataRaw != null,
        webhook_bodies: bodiesOf.get(t.id) ?? 0,
        webhook_responses: answersOf.get(t.id) ?? 0,
      },
      kept: { fields: KEPT_FIELDS, blocklist_entries: blocked.get(t.id) ?? 0 },
    };
    signed.push(signReceipt(signer, receipt));
  }
  // One parameter each (a JSON array), not one per column and row: a batch is two statements whatever its size.
  await tx.execute(sql`
    insert into erasure_receipts (id, verification_id, workspace_id, trigger, key_id, payload, signature, created_at)
    select x.id, x.verification_id, x.workspace_id, x.trigger, x.key_id, x.payload, x.signature, ${at}::timestamptz
    from json_to_recordset(${JSON.stringify(
      signed.map((s) => ({
        id: s.receipt.id,
        verification_id: s.receipt.verification_id,
        workspace_id: s.receipt.workspace_id,
        trigger: s.receipt.trigger,
        key_id: s.signature.kid,
        payload: canonicalJson(s.receipt),
        signature: s.signature.value,
      })),
    )}::json) as x(id text, verification_id text, workspace_id text, trigger text, key_id text, payload text, signature text)`);
  await tx.execute(sql`
    insert into audit_log (id, workspace_id, verification_id, actor, action, request_id, data, created_at)
    select x.id, x.workspace_id, x.verification_id, ${ctx.actor}, 'verification.data_erased', ${ctx.requestId ?? null}, x.data, ${at}::timestamptz
    from json_to_recordset(${JSON.stringify(
      signed.map((s) => ({
        id: newId('aud'),
        workspace_id: s.receipt.workspace_id,
        verification_id: s.receipt.verification_id,
        data: {
          trigger: s.receipt.trigger,
          receipt_id: s.receipt.id,
          media: s.receipt.erased.media.length,
          face_embedding: s.receipt.erased.face_embedding,
          data_key: s.receipt.erased.data_key,
          result_fields: s.receipt.erased.result_fields.length,
          status: s.receipt.status,
        },
      })),
    )}::json) as x(id text, workspace_id text, verification_id text, data jsonb)`);
  return signed;
}

/**
 * Data written by an earlier version with personal fields outside a data key, moved under one in the background
 * (the retention sweep runs this after each erasure pass; `encryption:rotate` runs it to the end): media bytes,
 * results, external_metadata, webhook bodies, receivers' answers and admins' notes. What belongs to an erased
 * verification is dropped instead. Each batch locks its rows (SKIP LOCKED) and walks them in id order, so it
 * runs beside the service and on several servers at once, and always ends. What moves, row by row:
 * docs/architecture.md "Notes behind the code"; docs/privacy.md "Upgrading".
 */
import { sql, type SQL } from 'drizzle-orm';
import type { Db, DbOrTx } from '@/lib/db/client';
import { ensureDataKey } from '../personal-data/data-keys';
import { openMedia, sealMediaBytes } from '../media/storage';
import { redactWebhookBody } from '../webhooks/payload';
import { sealResult, splitResult } from '../personal-data/result-fields';
import { AAD, sealText } from '../personal-data/personal';

export type UpgradeCounts = {
  media: number;
  results: number;
  metadata: number;
  webhook_bodies: number;
  webhook_responses: number;
  audit_notes: number;
};

/** The partial index verifications_unsealed_result_idx has exactly this predicate. */
const UNSEALED_RESULT = sql`(result ? 'person' or (result -> 'document') ?| array['number_masked', 'expiry_date', 'issuing_country'])`;

type Step = (tx: DbOrTx, after: string, batch: number) => Promise<string[]>;

/** Runs one step in batches (each a transaction) until a batch comes back short or the deadline passes. */
async function drain(db: Db, step: Step, batch: number, deadline: number): Promise<{ n: number; more: boolean }> {
  let after = '';
  let n = 0;
  for (;;) {
    const ids = await db.transaction((tx) => step(tx, after, batch));
    n += ids.length;
    if (ids.length < batch) return { n, more: false };
    after = ids[ids.length - 1];
    if (Date.now() > deadline) return { n, more: true };
  }
}

const rowsOf = async <T>(tx: DbOrTx, q: SQL) => Array.from(await tx.execute<T & { id: string }>(q));

const media: Step = async (tx, after, batch) => {
  const rows = await rowsOf<{ verification_id: string; ciphertext: Buffer; erased: boolean }>(
    tx,
    sql`
      select b.media_id as id, m.verification_id, b.ciphertext, v.data_erased_at is not null as erased
      from media_blobs b join media m on m.id = b.media_id join verifications v on v.id = m.verification_id
      where b.sealed_by = 'encryption_key' and b.media_id > ${after}
      order by b.media_id limit ${batch}
      for update of b skip locked`,
  );
  for (const r of rows) {
    if (r.erased) {
      // Bytes left behind by a server of the earlier version after the erasure: they go too.
      await tx.execute(sql`delete from media_blobs where media_id = ${r.id}`);
      continue;
    }
    const plain = openMedia({
      mediaId: r.id,
      verificationId: r.verification_id,
      ciphertext: r.ciphertext,
      sealedBy: 'encryption_key',
      dataKey: null,
    });
    const key = await ensureDataKey(tx, r.verification_id);
    await tx.execute(
      sql`update media_blobs set ciphertext = ${sealMediaBytes(r.id, key, plain)}, sealed_by = 'data_key' where media_id = ${r.id}`,
    );
  }
  return rows.map((r) => r.id);
};

const results: Step = async (tx, after, batch) => {
  const rows = await rowsOf<{ result: unknown; erased: boolean }>(
    tx,
    sql`
      select id, result, data_erased_at is not null as erased from verifications
      where ${UNSEALED_RESULT} and id > ${after}
      order by id limit ${batch}
      for update skip locked`,
  );
  for (const r of rows) {
    // An erased verification keeps its decision only (a server of the earlier version wrote after the erasure).
    const sealed = r.erased
      ? { result: splitResult(r.result).kept, resultSealed: null }
      : await sealResult(tx, r.id, r.result);
    const result = sealed.result === null ? sql`null` : sql`${JSON.stringify(sealed.result)}::jsonb`;
    await tx.execute(
      sql`update verifications set result = ${result}, result_sealed = ${sealed.resultSealed} where id = ${r.id}`,
    );
  }
  return rows.map((r) => r.id);
};

const metadata: Step = async (tx, after, batch) => {
  // The index verifications_unsealed_metadata_idx has this predicate.
  const rows = await rowsOf<{ metadata: unknown; raw: string | null; erased: boolean }>(
    tx,
    sql`
      select id, external_metadata as metadata, external_metadata_raw as raw, data_erased_at is not null as erased from verifications
      where (external_metadata is not null or external_metadata_raw is not null) and id > ${after}
      order by id limit ${batch}
      for update skip locked`,
  );
  for (const r of rows) {
    const text = r.raw ?? (r.metadata === null ? null : JSON.stringify(r.metadata));
    const sealed = r.erased || text === null ? null : sealText(await ensureDataKey(tx, r.id), AAD.metadata(r.id), text);
    await tx.execute(
      sql`update verifications set external_metadata_sealed = coalesce(${sealed}::bytea, external_metadata_sealed), external_metadata = null, external_metadata_raw = null where id = ${r.id}`,
    );
  }
  return rows.map((r) => r.id);
};

const webhookBodies: Step = async (tx, after, batch) => {
  // The index webhook_events_unsealed_idx has this predicate.
  const rows = await rowsOf<{ verification_id: string; body: string; erased: boolean }>(
    tx,
    sql`
      select e.id, e.verification_id, e.body, v.data_erased_at is not null as erased
      from webhook_events e join verifications v on v.id = e.verification_id
      where e.body_sealed is null and e.body ~ '"(external_metadata":[[:space:]]*[{]|device_signals":)' and e.id > ${after}
      order by e.id limit ${batch}
      for update of e skip locked`,
  );
  for (const r of rows) {
    const clear = redactWebhookBody(r.body) ?? r.body;
    const sealed = r.erased
      ? null
      : sealText(await ensureDataKey(tx, r.verification_id), AAD.webhookBody(r.id), r.body);
    await tx.execute(sql`update webhook_events set body = ${clear}, body_sealed = ${sealed} where id = ${r.id}`);
  }
  return rows.map((r) => r.id);
};

const webhookResponses: Step = async (tx, after, batch) => {
  // The index webhook_attempts_unsealed_idx has this predicate.
  const rows = await rowsOf<{ verification_id: string; response: string; erased: boolean }>(
    tx,
    sql`
      select a.id, e.verification_id, a.response_body as response, v.data_erased_at is not null as erased
      from webhook_attempts a join webhook_events e on e.id = a.event_id join verifications v on v.id = e.verification_id
      where a.response_body is not null and a.id > ${after}
      order by a.id limit ${batch}
      for update of a skip locked`,
  );
  for (const r of rows) {
    const sealed = r.erased
      ? null
      : sealText(await ensureDataKey(tx, r.verification_id), AAD.webhookResponse(r.id), r.response);
    await tx.execute(
      sql`update webhook_attempts set response_body = null, response_sealed = ${sealed} where id = ${r.id}`,
    );
  }
  return rows.map((r) => r.id);
};

const auditNotes: Step = async (tx, after, batch) => {
  // The index audit_log_unsealed_note_idx has this predicate.
  const rows = await rowsOf<{ verification_id: string; note: string; erased: boolean }>(
    tx,
    sql`
      select a.id, a.verification_id, a.data ->> 'note' as note, coalesce(v.data_erased_at is not null, true) as erased
      from audit_log a left join verifications v on v.id = a.verification_id
      where a.verification_id is not null and a.data ? 'note' and a.data ->> 'note' is not null and a.id > ${after}
      order by a.id limit ${batch}
      for update of a skip locked`,
  );
  for (const r of rows) {
    const sealed = r.erased
      ? null
      : sealText(await ensureDataKey(tx, r.verification_id), AAD.audit(r.id), JSON.stringify({ note: r.note }));
    await tx.execute(
      sql`update audit_log set data = data - 'note', data_sealed = coalesce(${sealed}::bytea, data_sealed) where id = ${r.id}`,
    );
  }
  return rows.map((r) => r.id);
};

const STEPS: [keyof UpgradeCounts, Step][] = [
  ['media', media],
  ['results', results],
  ['metadata', metadata],
  ['webhook_bodies', webhookBodies],
  ['webhook_responses', webhookResponses],
  ['audit_notes', auditNotes],
];

export async function upgradeLegacyData(
  db: Db,
  opts: { batch?: number; deadline?: number } = {},
): Promise<UpgradeCounts & { more: boolean }> {
  const batch = opts.batch ?? 200;
  const deadline = opts.deadline ?? Infinity;
  const out: UpgradeCounts & { more: boolean } = {
    media: 0,
    results: 0,
    metadata: 0,
    webhook_bodies: 0,
    webhook_responses: 0,
    audit_notes: 0,
    more: false,
  };
  for (const [name, step] of STEPS) {
    const r = await drain(db, step, batch, deadline);
    out[name] = r.n;
    if (r.more) return { ...out, more: true };
  }
  return out;
}

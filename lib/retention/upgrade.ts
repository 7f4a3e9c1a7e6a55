/**
 * Data written before verifications had data keys, moved under one in the background (the retention sweep
 * runs this after each erasure pass; `encryption:rotate` runs it to the end):
 * - media bytes sealed directly by ENCRYPTION_KEY (`media_blobs.sealed_by = 'encryption_key'`, the column's
 *   default, so rows a server of the earlier version writes during a rolling deploy are found too) are
 *   re-encrypted under their verification's data key;
 * - results holding personal fields in the clear get them sealed (lib/retention/result-fields.ts).
 * Each batch locks its rows (SKIP LOCKED), so it runs beside the service and on several servers at once.
 */
import { sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { ensureDataKey } from '../crypto/data-keys';
import { openMedia, sealMediaBytes } from '../media/storage';
import { sealResult, splitResult } from './result-fields';

export type UpgradeCounts = { media: number; results: number };

/** The partial index verifications_unsealed_result_idx has exactly this predicate. */
const UNSEALED_RESULT = sql`(result ? 'person' or (result -> 'document') ?| array['number_masked', 'expiry_date', 'issuing_country'])`;

export async function upgradeLegacyData(db: Db, opts: { batch?: number; deadline?: number } = {}): Promise<UpgradeCounts & { more: boolean }> {
  const batch = opts.batch ?? 200;
  const deadline = opts.deadline ?? Infinity;
  const out = { media: 0, results: 0, more: false };

  for (;;) {
    const n = await db.transaction(async (tx) => {
      const rows = Array.from(
        await tx.execute<{ media_id: string; verification_id: string; ciphertext: Buffer; erased: boolean }>(sql`
          select b.media_id, m.verification_id, b.ciphertext, v.data_erased_at is not null as erased
          from media_blobs b join media m on m.id = b.media_id join verifications v on v.id = m.verification_id
          where b.sealed_by = 'encryption_key'
          limit ${batch}
          for update of b skip locked`),
      );
      for (const r of rows) {
        if (r.erased) {
          // Bytes left behind by a server of the earlier version after the erasure: they go too.
          await tx.execute(sql`delete from media_blobs where media_id = ${r.media_id}`);
          continue;
        }
        const plain = openMedia({ mediaId: r.media_id, verificationId: r.verification_id, ciphertext: r.ciphertext, sealedBy: 'encryption_key', dataKey: null });
        const key = await ensureDataKey(tx, r.verification_id);
        await tx.execute(sql`update media_blobs set ciphertext = ${sealMediaBytes(r.media_id, key, plain)}, sealed_by = 'data_key' where media_id = ${r.media_id}`);
      }
      return rows.length;
    });
    out.media += n;
    if (n < batch) break;
    if (Date.now() > deadline) return { ...out, more: true };
  }

  for (;;) {
    const n = await db.transaction(async (tx) => {
      const rows = Array.from(
        await tx.execute<{ id: string; result: unknown; erased: boolean }>(sql`
          select id, result, data_erased_at is not null as erased from verifications
          where ${UNSEALED_RESULT}
          limit ${batch}
          for update skip locked`),
      );
      for (const r of rows) {
        // An erased verification keeps its decision only (a server of the earlier version wrote after the erasure).
        const sealed = r.erased ? { result: splitResult(r.result).kept, resultSealed: null } : await sealResult(tx, r.id, r.result);
        const result = sealed.result === null ? sql`null` : sql`${JSON.stringify(sealed.result)}::jsonb`;
        await tx.execute(sql`update verifications set result = ${result}, result_sealed = ${sealed.resultSealed} where id = ${r.id}`);
      }
      return rows.length;
    });
    out.results += n;
    if (n < batch) break;
    if (Date.now() > deadline) return { ...out, more: true };
  }
  return out;
}

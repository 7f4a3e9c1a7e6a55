/**
 * Rotating ENCRYPTION_KEY without downtime. Everything the key protects carries the id of the key that
 * wrapped it: the verifications' data keys (`data_keys.kek_id`), and the text columns of SEALED_COLUMNS (secret
 * API keys, receipt signing keys, capture links, admins' TOTP secrets: `v1.<key id>.…`). While a rotation runs, servers encrypt with the new key and still read with the old one
 * (ENCRYPTION_KEYS_PREVIOUS, or the key file's `.previous`); `rewrapAll` then moves every value under the new key
 * in batches (SKIP LOCKED, beside live traffic). Only data keys are re-wrapped, never the photos: a rotation is
 * a few hundred bytes per verification whatever its photos weigh. Once `keyUsage` shows nothing under an old
 * key, the old key can be destroyed — and with it every backup made before the rotation becomes unreadable for
 * photos and personal fields (their data keys in that backup are wrapped by the destroyed key).
 */
import { sql } from 'drizzle-orm';
import type { Db } from '@/lib/db/client';
import { keyRing } from '../../core/crypto/keyring';
import { openWithKek, sealWithKek, unwrapWithKek, wrapWithKek } from '../../core/crypto/secretbox';
import { SEALED_COLUMNS, type SealedColumn } from '../../core/crypto/sealed-columns';
import { upgradeLegacyData } from '../retention/upgrade';
import { log } from '../../core/log';

export type RewrapCounts = { data_keys: number; legacy_media: number; unsealed_results: number } & Record<
  SealedColumn,
  number
>;

async function batches(work: () => Promise<number>, batch: number): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await work();
    total += n;
    if (n < batch) return total;
  }
}

/** Re-wraps every value not under the primary key (and moves data from before data keys under one). */
export async function rewrapAll(db: Db, opts: { batch?: number } = {}): Promise<RewrapCounts> {
  const batch = opts.batch ?? 500;
  const primary = keyRing().primary;
  const current = `v1.${primary.id}.%`;

  const dataKeys = await batches(
    () =>
      db.transaction(async (tx) => {
        const rows = Array.from(
          await tx.execute<{ verification_id: string; kek_id: string; wrapped: Buffer }>(sql`
            select verification_id, kek_id, wrapped from data_keys where kek_id <> ${primary.id}
            limit ${batch} for update skip locked`),
        );
        if (!rows.length) return 0;
        const next = rows.map((r) => {
          const aad = `data_key:${r.verification_id}`;
          const w = wrapWithKek(unwrapWithKek(r.kek_id, r.wrapped, aad), aad, primary);
          return { id: r.verification_id, k: w.kekId, w: w.wrapped.toString('base64') };
        });
        await tx.execute(sql`
          update data_keys d set kek_id = x.k, wrapped = decode(x.w, 'base64')
          from json_to_recordset(${JSON.stringify(next)}::json) as x(id text, k text, w text)
          where d.verification_id = x.id`);
        return rows.length;
      }),
    batch,
  );

  // Secret API keys (deleted ones included: their rows stay, and none must be left under a key about to go), the
  // receipt signing keys, the capture links' tokens and the admins' TOTP secrets: text sealed as `v1.<key id>.…`.
  const sealed = {} as Record<SealedColumn, number>;
  for (const name of Object.keys(SEALED_COLUMNS) as SealedColumn[])
    sealed[name] = await batches(() => reseal(db, SEALED_COLUMNS[name], current, batch), batch);

  const legacy = await upgradeLegacyData(db, { batch });
  const counts: RewrapCounts = {
    data_keys: dataKeys,
    ...sealed,
    legacy_media: legacy.media,
    unsealed_results: legacy.results,
  };
  log.info('encryption keys re-wrapped', { key_id: primary.id, ...counts });
  return counts;
}

/** One batch of a sealed text column not under the primary key (`current`: its `v1.<id>.%` prefix), re-sealed. */
function reseal(db: Db, c: (typeof SEALED_COLUMNS)[SealedColumn], current: string, batch: number) {
  return db.transaction(async (tx) => {
    const col = sql.identifier(c.column);
    const table = sql.identifier(c.table);
    const rows = Array.from(
      await tx.execute<{ id: string; sealed: string }>(sql`
        select id, ${col} as sealed from ${table} where ${col} is not null and ${col} not like ${current}
        limit ${batch} for update skip locked`),
    );
    for (const r of rows) {
      await tx.execute(
        sql`update ${table} set ${col} = ${sealWithKek(openWithKek(r.sealed, c.aad(r.id)), c.aad(r.id))} where id = ${r.id}`,
      );
    }
    return rows.length;
  });
}

export type KeyUsage = {
  primary: string;
  accepted: string[];
  source: 'environment' | 'file';
  /** Values per wrapping key id; `legacy` = written before key ids (under some accepted key). */
  data_keys: Record<string, number>;
  secret_keys: Record<string, number>;
  signing_keys: Record<string, number>;
  capture_links: Record<string, number>;
  admin_totp_secrets: Record<string, number>;
  admin_totp_pending: Record<string, number>;
  /** Photos still sealed directly by ENCRYPTION_KEY (written before data keys). */
  legacy_media: number;
  /** Values under any key other than the primary: 0 means the previous keys can be destroyed. */
  not_under_primary: number;
};

const tally = (rows: Iterable<{ kid: string; n: number }>) =>
  Object.fromEntries(Array.from(rows, (r) => [r.kid, Number(r.n)]));

export async function keyUsage(db: Db): Promise<KeyUsage> {
  const ring = keyRing();
  const kidOf = (col: string) =>
    sql.raw(`case when ${col} like 'v1.%' then split_part(${col}, '.', 2) else 'legacy' end`);
  const dataKeys = tally(
    await db.execute<{ kid: string; n: number }>(
      sql`select kek_id as kid, count(*)::int as n from data_keys group by 1`,
    ),
  );
  const sealed = {} as Record<SealedColumn, Record<string, number>>;
  for (const [name, c] of Object.entries(SEALED_COLUMNS) as [SealedColumn, (typeof SEALED_COLUMNS)[SealedColumn]][]) {
    sealed[name] = tally(
      await db.execute<{ kid: string; n: number }>(
        sql`select ${kidOf(c.column)} as kid, count(*)::int as n from ${sql.identifier(c.table)} where ${sql.identifier(c.column)} is not null group by 1`,
      ),
    );
  }
  const [{ n: legacyMedia }] = Array.from(
    await db.execute<{ n: number }>(sql`select count(*)::int as n from media_blobs where sealed_by = 'encryption_key'`),
  );
  const others = (t: Record<string, number>) =>
    Object.entries(t).reduce((s, [kid, n]) => s + (kid === ring.primary.id ? 0 : n), 0);
  return {
    primary: ring.primary.id,
    accepted: [...ring.accepted.keys()].filter((k) => k !== ring.primary.id),
    source: ring.source,
    data_keys: dataKeys,
    ...sealed,
    legacy_media: Number(legacyMedia),
    not_under_primary:
      others(dataKeys) + Object.values(sealed).reduce((n, t) => n + others(t), 0) + Number(legacyMedia),
  };
}

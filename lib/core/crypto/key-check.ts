/**
 * Whether a key ring reads a database: every key id its values are wrapped under (the data keys' `kek_id`, the
 * `v1.<key id>.…` of SEALED_COLUMNS) must be in the ring, and a value from before key ids must open under one of
 * its keys. Asked before a restore writes anything (lib/db/embedded/backup.ts) and before the server serves
 * (server/launch.ts): a server without the key would otherwise answer every signed request with a 500.
 * docs/deploy.md, "Backing up and restoring".
 *
 * It reads through a bare query function, so it runs on a backup unpacked into an engine of its own as well as
 * on the server's database, and it tolerates a database from an earlier version (a table or column not there
 * yet is simply not looked at).
 */
import { aesGcmDecrypt } from './secretbox';
import type { Kek } from './keyring';
import { SEALED_COLUMNS } from './sealed-columns';

export type Query = (text: string) => Promise<Record<string, unknown>[]>;

/** The label of values written before key ids (no key id to name: whichever accepted key opens them). */
export const LEGACY = 'legacy (before key ids)';

export type KeyCheck = {
  /** Every key id the database's values are wrapped under (LEGACY for values from before key ids). */
  needed: string[];
  /** Those the ring does not hold. */
  missing: string[];
};

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

async function columnsPresent(q: Query): Promise<Set<string>> {
  const rows = await q(
    `select table_name, column_name from information_schema.columns where table_schema = current_schema()`,
  );
  return new Set(rows.map((r) => `${r.table_name}.${r.column_name}`));
}

function opensWithAny(ring: ReadonlyMap<string, Kek>, boxed: Uint8Array, aad: string): boolean {
  for (const kek of ring.values()) {
    try {
      aesGcmDecrypt(boxed, aad, kek.key);
      return true;
    } catch {
      /* not this key */
    }
  }
  return false;
}

export async function checkKeyRing(q: Query, ring: ReadonlyMap<string, Kek>): Promise<KeyCheck> {
  const has = await columnsPresent(q);
  const needed = new Set<string>();
  let legacyUnreadable = false;

  if (has.has('data_keys.kek_id')) {
    // The distinct ids by walking the kek_id index (one probe per key id, however many rows).
    const rows = await q(`
      with recursive k as (
        select min(kek_id) as id from data_keys
        union all
        select (select min(kek_id) from data_keys where kek_id > k.id) from k where k.id is not null
      ) select id from k where id is not null`);
    for (const r of rows) needed.add(String(r.id));
  }

  for (const c of Object.values(SEALED_COLUMNS)) {
    if (!has.has(`${c.table}.${c.column}`)) continue;
    const col = quote(c.column);
    const table = quote(c.table);
    for (const r of await q(`select distinct split_part(${col}, '.', 2) as id from ${table} where ${col} like 'v1.%'`))
      needed.add(String(r.id));
    const [legacy] = await q(
      `select id, ${col} as sealed from ${table} where ${col} is not null and ${col} not like 'v1.%' limit 1`,
    );
    if (legacy) {
      needed.add(LEGACY);
      if (!opensWithAny(ring, Buffer.from(String(legacy.sealed), 'base64'), c.aad(String(legacy.id))))
        legacyUnreadable = true;
    }
  }

  // Photos stored before data keys, sealed directly by the key ring's key (no key id).
  if (has.has('media_blobs.ciphertext')) {
    const where = has.has('media_blobs.sealed_by') ? `where sealed_by = 'encryption_key'` : '';
    const [legacy] = await q(`select media_id, ciphertext from media_blobs ${where} limit 1`);
    if (legacy) {
      needed.add(LEGACY);
      if (!opensWithAny(ring, legacy.ciphertext as Uint8Array, `media:${legacy.media_id}`)) legacyUnreadable = true;
    }
  }

  const missing = [...needed].filter((id) => (id === LEGACY ? legacyUnreadable : !ring.has(id)));
  return { needed: [...needed].sort(), missing: missing.sort() };
}

/** A key ring that cannot read a database: the restore or the start is refused. */
export class KeysUnreadableError extends Error {
  constructor(
    message: string,
    readonly check: KeyCheck,
    readonly ringIds: string[],
  ) {
    super(message);
    this.name = 'KeysUnreadableError';
  }

  details() {
    return { missing_key_ids: this.check.missing, needed_key_ids: this.check.needed, key_ring: this.ringIds };
  }
}

/** Secret keys: format, generation, encryption at rest, and the per-workspace limit. */
import { and, asc, eq, isNull, lt, or, sql } from 'drizzle-orm';
import { secretKeys } from '@/lib/db/schema';
import type { DbOrTx } from '@/lib/db/client';
import { DomainError, notFound } from '../../core/errors';
import { openWithKek, sealWithKek } from '../../core/crypto/secretbox';
import { newId, randomAlnum } from '../../core/ids';
import { secretKeyAad } from '../../core/crypto/sealed-columns';

export type Mode = 'test' | 'live';
export const MAX_SECRET_KEYS = 5;
export { secretKeyAad };
const aad = secretKeyAad;

// Process state on globalThis (docs/architecture.md "State of the process"): /v1 is served by the custom server's
// copy of this module, the admin area and the capture page by Next.js's bundles; one cache and one record serve all.
const g = globalThis as unknown as { __ovKeyPlaintexts?: Map<string, string>; __ovKeyUses?: Map<string, number> };

// Decryption is deterministic per ciphertext, so caching by ciphertext is safe: the key rows are still
// read on every request, so a deleted key stops validating at once (and a re-encrypted one is a new entry).
const plainCache = (g.__ovKeyPlaintexts ??= new Map<string, string>());
export function revealSecret(row: { id: string; secretCiphertext: string }): string {
  let s = plainCache.get(row.secretCiphertext);
  if (!s) {
    s = openWithKek(row.secretCiphertext, aad(row.id)).toString('utf8');
    if (plainCache.size > 10_000) plainCache.clear();
    plainCache.set(row.secretCiphertext, s);
  }
  return s;
}

export type CreatedKey = { id: string; mode: Mode; secret: string };

/** Creates a key (shown once). Serialised per workspace so two creations cannot both pass the limit. */
export async function createSecretKey(
  db: DbOrTx,
  input: { workspaceId: string; mode: Mode; active?: boolean },
): Promise<CreatedKey> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${'keys:' + input.workspaceId}))`);
    const [{ n }] = await tx
      .select({ n: sql<number>`count(*)::int` })
      .from(secretKeys)
      .where(and(eq(secretKeys.workspaceId, input.workspaceId), isNull(secretKeys.deletedAt)));
    if (n >= MAX_SECRET_KEYS) {
      throw new DomainError(
        'KEY_LIMIT_REACHED',
        `A workspace has at most ${MAX_SECRET_KEYS} secret keys; delete one first.`,
      );
    }
    const id = newId('key');
    const secret = `sk_${input.mode}_${randomAlnum(56)}`;
    if (input.active) await deactivateAll(tx, input.workspaceId);
    await tx.insert(secretKeys).values({
      id,
      workspaceId: input.workspaceId,
      mode: input.mode,
      secretCiphertext: sealWithKek(secret, aad(id)),
      lastFour: secret.slice(-4),
      isActive: !!input.active,
      activatedAt: input.active ? new Date() : null,
    });
    return { id, mode: input.mode, secret };
  });
}

async function deactivateAll(tx: DbOrTx, workspaceId: string) {
  await tx
    .update(secretKeys)
    .set({ isActive: false })
    .where(and(eq(secretKeys.workspaceId, workspaceId), eq(secretKeys.isActive, true)));
}

async function getKeyOrThrow(db: DbOrTx, keyId: string) {
  const [row] = await db
    .select()
    .from(secretKeys)
    .where(and(eq(secretKeys.id, keyId), isNull(secretKeys.deletedAt)));
  if (!row) throw notFound('Secret key');
  return row;
}

/** Makes this key the one that signs webhooks. Takes effect for the next signature made. */
export async function activateSecretKey(db: DbOrTx, keyId: string) {
  return db.transaction(async (tx) => {
    const row = await getKeyOrThrow(tx, keyId);
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${'keys:' + row.workspaceId}))`);
    await deactivateAll(tx, row.workspaceId);
    await tx.update(secretKeys).set({ isActive: true, activatedAt: new Date() }).where(eq(secretKeys.id, keyId));
    return publicKey({ ...row, isActive: true });
  });
}

/**
 * Soft-deletes a key: it stops validating requests at once. The active key is refused (KEY_ACTIVE): a
 * workspace has exactly one designated active key (docs/api.md), so another is activated first. Serialised
 * with activation, so a deletion cannot slip past an activation of the same key.
 */
export async function deleteSecretKey(db: DbOrTx, keyId: string) {
  return db.transaction(async (tx) => {
    const first = await getKeyOrThrow(tx, keyId);
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${'keys:' + first.workspaceId}))`);
    const row = await getKeyOrThrow(tx, keyId);
    if (row.isActive) {
      throw new DomainError(
        'KEY_ACTIVE',
        'This is the active key (it signs webhooks): activate another key first, then delete this one.',
        { key: keyId, mode: row.mode },
      );
    }
    await tx.update(secretKeys).set({ deletedAt: new Date(), isActive: false }).where(eq(secretKeys.id, keyId));
    return publicKey({ ...row, isActive: false });
  });
}

/** A workspace's key by id (NOT_FOUND when deleted or another workspace's): the admin pages check the workspace. */
export async function secretKeyWorkspace(db: DbOrTx, keyId: string): Promise<string> {
  return (await getKeyOrThrow(db, keyId)).workspaceId;
}

/** last_used_at is written at most this often per key: a busy key costs one write a minute, not one a request. */
export const KEY_USE_RECORD_MS = 60_000;
const lastRecorded = (g.__ovKeyUses ??= new Map<string, number>());

/**
 * Notes that a key let a request in (the auth path calls it, without waiting). Once a minute per key in this
 * process, and the update itself is conditional, so several servers also write about once a minute.
 */
export function recordKeyUse(db: DbOrTx, keyId: string, now = new Date()): Promise<void> {
  const prev = lastRecorded.get(keyId);
  if (prev !== undefined && now.getTime() - prev < KEY_USE_RECORD_MS) return Promise.resolve();
  if (lastRecorded.size > 10_000) lastRecorded.clear();
  lastRecorded.set(keyId, now.getTime());
  const before = new Date(now.getTime() - KEY_USE_RECORD_MS);
  return db
    .update(secretKeys)
    .set({ lastUsedAt: now })
    .where(and(eq(secretKeys.id, keyId), or(isNull(secretKeys.lastUsedAt), lt(secretKeys.lastUsedAt, before))))
    .then(() => undefined);
}

/** Tests: forget which keys were recorded recently. */
export const resetKeyUseMemory = () => lastRecorded.clear();

export async function listSecretKeys(db: DbOrTx, workspaceId: string) {
  const rows = await db
    .select()
    .from(secretKeys)
    .where(and(eq(secretKeys.workspaceId, workspaceId), isNull(secretKeys.deletedAt)))
    .orderBy(asc(secretKeys.createdAt));
  return rows.map(publicKey);
}

type KeyRow = typeof secretKeys.$inferSelect;
export function publicKey(k: KeyRow) {
  return {
    id: k.id,
    mode: k.mode,
    active: k.isActive,
    hint: `sk_${k.mode}_…${k.lastFour}`,
    created_at: k.createdAt.toISOString(),
    activated_at: k.activatedAt?.toISOString() ?? null,
    last_used_at: k.lastUsedAt?.toISOString() ?? null,
  };
}

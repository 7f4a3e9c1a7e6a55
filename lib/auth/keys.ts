/** Secret keys: format, generation, encryption at rest, and the per-workspace limit. */
import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import { secretKeys } from '@/db/schema';
import type { DbOrTx } from '@/db/client';
import { DomainError, notFound } from '../errors';
import { openWithKek, sealWithKek } from '../crypto/secretbox';
import { newId, randomAlnum } from '../ids';

export type Mode = 'test' | 'live';
export const MAX_SECRET_KEYS = 5;
export const SECRET_KEY_RE = /^sk_(test|live)_[A-Za-z0-9]{56}$/;

export const modeOfSecret = (secret: string): Mode => (secret.startsWith('sk_live_') ? 'live' : 'test');
export const secretKeyAad = (keyId: string) => `secret_key:${keyId}`;
const aad = secretKeyAad;

// Decryption is deterministic per ciphertext, so caching by ciphertext is safe: the key rows are still
// read on every request, so a deleted key stops validating at once (and a re-encrypted one is a new entry).
const plainCache = new Map<string, string>();
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
      throw new DomainError('KEY_LIMIT_REACHED', `A workspace has at most ${MAX_SECRET_KEYS} secret keys; delete one first.`);
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

/** Soft-deletes a key: it stops validating requests at once. Deleting the active key leaves none active. */
export async function deleteSecretKey(db: DbOrTx, keyId: string) {
  const row = await getKeyOrThrow(db, keyId);
  await db.update(secretKeys).set({ deletedAt: new Date(), isActive: false }).where(eq(secretKeys.id, keyId));
  return publicKey({ ...row, isActive: false });
}

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
  };
}

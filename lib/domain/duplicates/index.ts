/**
 * Duplicate search with pgvector (HNSW, cosine), exactly per docs/api.md "Duplicates": within one workspace
 * and mode; an account is an external_id (a verification without one is its own account); matches carrying
 * this verification's own external_id are excluded; an account counts once, at its strongest score;
 * duplicate_count counts every matching account, at most 10 listed.
 */
import { sql } from 'drizzle-orm';
import type { DbOrTx } from '@/db/client';
import { faceEmbeddings } from '@/db/schema';

export type DuplicateCheck = {
  checked: boolean;
  duplicate_count: number;
  duplicates: { verification_id: string; external_id: string | null; similarity_score: number; verified_at: string | null }[];
};

export const NOT_CHECKED: DuplicateCheck = { checked: false, duplicate_count: 0, duplicates: [] };
/**
 * How many nearest faces one search examines. It starts at FIRST_DEPTH, one pass of the HNSW graph; only when
 * every one of those is a match (someone with very many captures) does it look again, SEARCH_DEPTH deep.
 * Matches beyond SEARCH_DEPTH are not counted (documented).
 */
export const FIRST_DEPTH = 100;
export const SEARCH_DEPTH = 1000;

export const vectorLiteral = (v: ArrayLike<number>) => `[${Array.from(v, (x) => (Number.isFinite(x) ? x : 0)).join(',')}]`;

/** The index's build parameters (db/schema/faces.ts, migration 0006). */
export const HNSW_BUILD = 'm=32, ef_construction=128';
/**
 * HNSW search settings for this transaction: the candidate list as deep as the first pass (pgvector's
 * default is 40), and pgvector 0.8's iterative scan so the workspace/mode filter still yields enough rows.
 * Measured (npm run bench:pipeline, 100k faces): ef_search 100 on the m=32 graph, recall 0.97 at 15 ms.
 */
export const EF_SEARCH = 100;
export async function tuneSearch(db: DbOrTx, efSearch = EF_SEARCH) {
  await db.execute(sql`select set_config('hnsw.ef_search', ${String(efSearch)}, true), set_config('hnsw.iterative_scan', 'relaxed_order', true)`);
}

type Input = { workspaceId: string; mode: 'test' | 'live'; verificationId: string; externalId: string | null; embedding: ArrayLike<number>; threshold: number };

/**
 * How a workspace's faces are searched (docs/performance.md "Duplicate search"). The HNSW index covers every
 * workspace; a search filtered to a workspace that is a small part of it walks the graph past other
 * workspaces' faces until it finds enough of its own (pgvector's iterative scan, up to hnsw.max_scan_tuples),
 * and loses recall and time doing so. A workspace and mode with at most EXACT_SCAN_MAX faces is therefore read
 * whole through the workspace index and sorted (exact, and cheap at that size); a larger one uses the HNSW index.
 */
export type Strategy = 'exact' | 'index';
export const EXACT_SCAN_MAX = 20_000;
const STRATEGY_TTL_MS = 10 * 60_000;
// Per process, and only a shortcut: a workspace that crosses the limit is searched the old way for at most the TTL.
const strategies = new Map<string, { strategy: Strategy; until: number }>();

/** The strategy for a workspace and mode: a bounded count of its faces (at most `max` + 1 index entries), cached. */
export async function searchStrategy(db: DbOrTx, scope: { workspaceId: string; mode: 'test' | 'live' }, now = Date.now(), max = EXACT_SCAN_MAX): Promise<Strategy> {
  const key = `${scope.workspaceId}/${scope.mode}/${max}`;
  const hit = strategies.get(key);
  if (hit && hit.until > now) return hit.strategy;
  const rows = await db.execute<{ n: number }>(sql`
    select count(*)::int as n from (select 1 from ${faceEmbeddings} where workspace_id = ${scope.workspaceId} and mode = ${scope.mode} limit ${max + 1}) s`);
  const strategy: Strategy = Number(Array.from(rows)[0]?.n ?? 0) > max ? 'index' : 'exact';
  if (strategies.size > 10_000) strategies.clear();
  strategies.set(key, { strategy, until: now + STRATEGY_TTL_MS });
  return strategy;
}

/**
 * The ORDER BY of a nearest-faces query: the distance operator itself lets PostgreSQL walk the HNSW index; the
 * same distance as a computed value (`+ 0`) cannot, so the rows are read through the workspace index and sorted.
 */
const orderBy = (strategy: Strategy, q: string) => (strategy === 'index' ? sql`fe.embedding <=> ${q}::vector` : sql`(fe.embedding <=> ${q}::vector) + 0`);

type Subject = { id: string; workspaceId: string; mode: 'test' | 'live'; externalId: string | null };

/**
 * The duplicate check of one submission's face, by its workspace's settings: not checked where duplicates are
 * allowed (docs/api.md: `false` means no answer), otherwise the search. Run inside a transaction (the search
 * settings are set for it alone).
 */
export async function checkDuplicates(tx: DbOrTx, v: Subject, ws: { allowDuplicates: boolean; duplicateThreshold: number }, embedding: ArrayLike<number>): Promise<DuplicateCheck> {
  if (ws.allowDuplicates) return NOT_CHECKED;
  await tuneSearch(tx);
  return findDuplicates(tx, { workspaceId: v.workspaceId, mode: v.mode, verificationId: v.id, externalId: v.externalId, embedding, threshold: ws.duplicateThreshold });
}

/** A submission's face joins the duplicate search (one row per verification: its latest submission's selfie). */
export async function rememberFace(tx: DbOrTx, v: Subject, embedding: number[], at: Date) {
  const values = { verificationId: v.id, workspaceId: v.workspaceId, mode: v.mode, externalId: v.externalId, account: v.externalId ?? v.id, embedding, createdAt: at };
  await tx.insert(faceEmbeddings).values(values).onConflictDoUpdate({ target: faceEmbeddings.verificationId, set: { embedding, createdAt: at } });
}

/** `strategy`: how to search (by default the workspace's, see searchStrategy); the benchmark compares them. */
export async function findDuplicates(db: DbOrTx, input: Input, strategy?: Strategy): Promise<DuplicateCheck> {
  const how = strategy ?? (await searchStrategy(db, input));
  const first = await searchAt(db, input, FIRST_DEPTH, how);
  return first.exhausted ? (await searchAt(db, input, SEARCH_DEPTH, how)).check : first.check;
}

async function searchAt(db: DbOrTx, input: Input, depth: number, strategy: Strategy): Promise<{ check: DuplicateCheck; exhausted: boolean }> {
  const q = vectorLiteral(input.embedding);
  const maxDistance = 1 - input.threshold;
  // `scanned` and `farthest` describe the nearest faces examined: when all `depth` of them are within the
  // threshold, there may be more matches further out.
  const rows = await db.execute<{ verification_id: string | null; external_id: string | null; similarity: number; verified_at: string | null; total: number; scanned: number; farthest: number | null }>(sql`
    with nearest as (
      select fe.verification_id, fe.external_id, fe.account, fe.embedding <=> ${q}::vector as distance
      from ${faceEmbeddings} fe
      where fe.workspace_id = ${input.workspaceId} and fe.mode = ${input.mode}
        and fe.verification_id <> ${input.verificationId} and fe.embedding is not null
      order by ${orderBy(strategy, q)}
      limit ${depth}
    ), matches as (
      select distinct on (account) verification_id, external_id, account, distance
      from nearest
      where distance <= ${maxDistance}
        and (${input.externalId}::text is null or external_id is distinct from ${input.externalId}::text)
      order by account, distance
    ), listed as (
      select m.verification_id, m.external_id, m.distance, 1 - m.distance as similarity, count(*) over () as total
      from matches m
      order by m.distance
      limit 10
    )
    -- Only the 10 listed are looked up in verifications (for verified_at), not every match: the second pass can
    -- hold hundreds (docs/performance.md "Duplicate search"). Every face's verification exists (a foreign key).
    select listed.verification_id, listed.external_id, listed.similarity, listed.total,
      case when v.status = 'approved' then v.completed_at end as verified_at,
      (select count(*) from nearest) as scanned, (select max(distance) from nearest) as farthest
    from (select 1) one left join listed on true left join verifications v on v.id = listed.verification_id
    order by listed.distance`);
  const all = Array.from(rows);
  const list = all.filter((r) => r.verification_id !== null);
  const scanned = Number(all[0]?.scanned ?? 0);
  return {
    exhausted: scanned === depth && all[0]?.farthest !== null && Number(all[0].farthest) <= maxDistance,
    check: {
      checked: true,
      duplicate_count: list.length ? Number(list[0].total) : 0,
      duplicates: list.map((r) => ({
        verification_id: r.verification_id!,
        external_id: r.external_id,
        similarity_score: Math.round(Math.max(0, Math.min(1, Number(r.similarity))) * 10000) / 10000,
        verified_at: r.verified_at ? new Date(r.verified_at).toISOString() : null,
      })),
    },
  };
}

type Scope = { workspaceId: string; mode: 'test' | 'live'; embedding: ArrayLike<number> };

/** The nearest face of a workspace and mode in one of the two face tables, skipping one verification's own. */
async function nearestFace(db: DbOrTx, table: 'blocklist_entries' | 'face_embeddings', input: Scope & { exceptVerificationId?: string }, strategy: Strategy) {
  const q = vectorLiteral(input.embedding);
  const key = table === 'blocklist_entries' ? sql`id` : sql`verification_id`;
  const except = input.exceptVerificationId ? sql`and verification_id <> ${input.exceptVerificationId}` : sql``;
  const rows = await db.execute<{ id: string; verification_id: string; similarity: number }>(sql`
    select ${key} as id, verification_id, 1 - (embedding <=> ${q}::vector) as similarity
    from ${sql.identifier(table)} fe where workspace_id = ${input.workspaceId} and mode = ${input.mode} and embedding is not null ${except}
    order by ${orderBy(strategy, q)} limit 1`);
  const r = Array.from(rows)[0];
  return r ? { id: r.id, verificationId: r.verification_id, similarity: Number(r.similarity) } : null;
}

/** The strongest blocklist match of a face in its workspace and mode (an exact scan: blocklists are small). */
export const blocklistMatch = (db: DbOrTx, input: Scope) => nearestFace(db, 'blocklist_entries', input, 'exact');

/**
 * The closest selfie of another verification in the workspace and mode. (Re-sending one's own picture within
 * a verification, e.g. after a processing error, is not a replay.)
 */
export const closestOtherCapture = async (db: DbOrTx, input: Scope & { verificationId: string }) =>
  nearestFace(db, 'face_embeddings', { ...input, exceptVerificationId: input.verificationId }, await searchStrategy(db, input));

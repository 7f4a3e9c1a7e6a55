/**
 * Duplicate search with pgvector (HNSW, cosine), exactly per docs/api.md "Duplicates": within one workspace
 * and mode; an account is an external_id (a verification without one is its own account); matches carrying
 * this verification's own external_id are excluded; an account counts once, at its strongest score;
 * duplicate_count counts every matching account, at most 10 listed.
 */
import { inArray, sql } from 'drizzle-orm';
import type { DbOrTx } from '@/lib/db/client';
import { faceEmbeddings, verifications } from '@/lib/db/schema';

export type DuplicateCheck = {
  checked: boolean;
  duplicate_count: number;
  duplicates: {
    verification_id: string;
    external_id: string | null;
    similarity_score: number;
    verified_at: string | null;
  }[];
};

export const NOT_CHECKED: DuplicateCheck = { checked: false, duplicate_count: 0, duplicates: [] };
/**
 * How the nearest faces are read: one cursor over them, nearest first, fetched a page at a time. The first page is
 * FIRST_DEPTH faces; only while every face of the last page was a match (someone with very many captures, or a
 * large workspace whose threshold lets many strangers match) is the next page, PAGE_DEPTH faces, read, from where
 * the walk of the index stopped, never walking it again from the start. Matches beyond SEARCH_DEPTH faces are not
 * counted (documented).
 */
export const FIRST_DEPTH = 100;
export const PAGE_DEPTH = 100;
export const SEARCH_DEPTH = 1000;

export const vectorLiteral = (v: ArrayLike<number>) =>
  `[${Array.from(v, (x) => (Number.isFinite(x) ? x : 0)).join(',')}]`;

/** The index's build parameters (lib/db/schema/faces.ts, migration 0006). */
export const HNSW_BUILD = 'm=32, ef_construction=128';
/**
 * HNSW search settings for this transaction: the candidate list as deep as the first pass (pgvector's
 * default is 40), and pgvector 0.8's iterative scan so the workspace/mode filter still yields enough rows.
 * Measured (npm run bench:pipeline, 100k faces): ef_search 100 on the m=32 graph, recall 0.97 at 15 ms.
 */
export const EF_SEARCH = 100;
const searchSettings = (efSearch: number) =>
  sql`select set_config('hnsw.ef_search', ${String(efSearch)}, true), set_config('hnsw.iterative_scan', 'relaxed_order', true)`;
export async function tuneSearch(db: DbOrTx, efSearch = EF_SEARCH) {
  await db.execute(searchSettings(efSearch));
}

/** `efSearch`: the HNSW candidate list of this search (EF_SEARCH; the benchmark compares others). */
type Input = {
  workspaceId: string;
  mode: 'test' | 'live';
  verificationId: string;
  externalId: string | null;
  embedding: ArrayLike<number>;
  threshold: number;
  efSearch?: number;
};

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
export async function searchStrategy(
  db: DbOrTx,
  scope: { workspaceId: string; mode: 'test' | 'live' },
  now = Date.now(),
  max = EXACT_SCAN_MAX,
): Promise<Strategy> {
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
const orderBy = (strategy: Strategy, q: string) =>
  strategy === 'index' ? sql`fe.embedding <=> ${q}::vector` : sql`(fe.embedding <=> ${q}::vector) + 0`;

type Subject = { id: string; workspaceId: string; mode: 'test' | 'live'; externalId: string | null };

/**
 * The duplicate check of one submission's face, by its workspace's settings: not checked where duplicates are
 * allowed (docs/api.md: `false` means no answer), otherwise the search. Run inside a transaction (the search
 * settings are set for it alone).
 */
export async function checkDuplicates(
  tx: DbOrTx,
  v: Subject,
  ws: { allowDuplicates: boolean; duplicateThreshold: number },
  embedding: ArrayLike<number>,
): Promise<DuplicateCheck> {
  if (ws.allowDuplicates) return NOT_CHECKED;
  return findDuplicates(tx, {
    workspaceId: v.workspaceId,
    mode: v.mode,
    verificationId: v.id,
    externalId: v.externalId,
    embedding,
    threshold: ws.duplicateThreshold,
  });
}

/** A submission's face joins the duplicate search (one row per verification: its latest submission's selfie). */
export async function rememberFace(tx: DbOrTx, v: Subject, embedding: number[], at: Date) {
  const values = {
    verificationId: v.id,
    workspaceId: v.workspaceId,
    mode: v.mode,
    externalId: v.externalId,
    account: v.externalId ?? v.id,
    embedding,
    createdAt: at,
  };
  await tx
    .insert(faceEmbeddings)
    .values(values)
    .onConflictDoUpdate({ target: faceEmbeddings.verificationId, set: { embedding, createdAt: at } });
}

/**
 * `strategy`: how to search (by default the workspace's, see searchStrategy); the benchmark compares them. Runs in
 * the given transaction (a cursor lives in one), or in one of its own when given the database.
 */
export async function findDuplicates(db: DbOrTx, input: Input, strategy?: Strategy): Promise<DuplicateCheck> {
  const how = strategy ?? (await searchStrategy(db, input));
  return 'rollback' in db ? search(db, input, how) : db.transaction((tx) => search(tx, input, how));
}

type Near = { verification_id: string; external_id: string | null; account: string; distance: number };

async function search(tx: DbOrTx, input: Input, strategy: Strategy): Promise<DuplicateCheck> {
  const q = vectorLiteral(input.embedding);
  const maxDistance = 1 - input.threshold;
  // The search settings, the cursor and its first page in one round trip: queries sent together on a transaction
  // are pipelined. Each is sent now (`then` starts a drizzle query), so they go on the wire in this order.
  const tuned = tx.execute(searchSettings(input.efSearch ?? EF_SEARCH)).then(() => undefined);
  const declared = tx
    .execute(
      sql`
    declare duplicate_search no scroll cursor for
    select fe.verification_id, fe.external_id, fe.account, fe.embedding <=> ${q}::vector as distance
    from ${faceEmbeddings} fe
    where fe.workspace_id = ${input.workspaceId} and fe.mode = ${input.mode}
      and fe.verification_id <> ${input.verificationId} and fe.embedding is not null
    order by ${orderBy(strategy, q)}
    limit ${SEARCH_DEPTH}`,
    )
    .then(() => undefined);
  const fetchPage = async (n: number) =>
    Array.from(await tx.execute<Near>(sql.raw(`fetch ${n} from duplicate_search`)));
  let asked = FIRST_DEPTH;
  let [, , rows] = await Promise.all([tuned, declared, fetchPage(asked)]);
  // An account counts once, at its strongest; this verification's own external_id is not a match.
  const best = new Map<string, Near>();
  for (let read = rows.length; ; read += rows.length) {
    let allMatched = rows.length === asked;
    for (const r of rows) {
      const distance = Number(r.distance);
      if (!(distance <= maxDistance)) {
        allMatched = false;
        continue;
      }
      if (input.externalId !== null && r.external_id === input.externalId) continue;
      const held = best.get(r.account);
      if (!held || distance < held.distance) best.set(r.account, { ...r, distance });
    }
    if (!allMatched || read >= SEARCH_DEPTH) break;
    asked = Math.min(PAGE_DEPTH, SEARCH_DEPTH - read);
    rows = await fetchPage(asked);
  }
  const closed = tx.execute(sql`close duplicate_search`);
  const listed = [...best.values()].sort((a, b) => a.distance - b.distance).slice(0, 10);
  // Only the 10 listed are looked up (for verified_at), not every match: there can be hundreds. Every face's
  // verification exists (a foreign key).
  const verified = new Map<string, Date | null>();
  const lookup = listed.length
    ? tx
        .select({ id: verifications.id, status: verifications.status, completedAt: verifications.completedAt })
        .from(verifications)
        .where(
          inArray(
            verifications.id,
            listed.map((m) => m.verification_id),
          ),
        )
    : Promise.resolve([]);
  const [, found] = await Promise.all([closed, lookup]);
  for (const r of found) verified.set(r.id, r.status === 'approved' ? r.completedAt : null);
  return {
    checked: true,
    duplicate_count: best.size,
    duplicates: listed.map((m) => {
      const at = verified.get(m.verification_id);
      return {
        verification_id: m.verification_id,
        external_id: m.external_id,
        similarity_score: Math.round(Math.max(0, Math.min(1, 1 - m.distance)) * 10000) / 10000,
        verified_at: at ? new Date(at).toISOString() : null,
      };
    }),
  };
}

type Scope = { workspaceId: string; mode: 'test' | 'live'; embedding: ArrayLike<number> };

/** The nearest face of a workspace and mode in one of the two face tables, skipping one verification's own. */
async function nearestFace(
  db: DbOrTx,
  table: 'blocklist_entries' | 'face_embeddings',
  input: Scope & { exceptVerificationId?: string },
  strategy: Strategy,
) {
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
  nearestFace(
    db,
    'face_embeddings',
    { ...input, exceptVerificationId: input.verificationId },
    await searchStrategy(db, input),
  );

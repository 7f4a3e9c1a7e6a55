/**
 * The queries every API request runs, as drizzle prepared queries built once per database client and
 * only when first used (building a drizzle query costs more CPU than the round trip on a busy server).
 */
import { and, desc, eq, getTableColumns, isNull, sql } from 'drizzle-orm';
import { auditLog, consentRecords, dataKeys, secretKeys, verifications, workspaces } from '@/lib/db/schema';
import type { Db, DbOrTx } from '@/lib/db/client';

const BUILDERS = {
  /** The workspace named by an API key with its non-deleted keys: one row per key (or one with nulls). */
  workspaceWithKeys: (db: Db) =>
    db
      .select({
        workspace: workspaces,
        keyId: secretKeys.id,
        keyMode: secretKeys.mode,
        keyCiphertext: secretKeys.secretCiphertext,
      })
      .from(workspaces)
      .leftJoin(secretKeys, and(eq(secretKeys.workspaceId, workspaces.id), isNull(secretKeys.deletedAt)))
      .where(eq(workspaces.apiKey, sql.placeholder('apiKey')))
      .prepare('ov_workspace_with_keys'),

  /**
   * A verification of a workspace and mode with its latest consent record and its wrapped data key. The row is
   * found by its id alone, on the primary key, in a subquery that the planner cannot merge into the outer query
   * (it has a LIMIT), and its workspace and mode are checked on that one row: offered `workspace_id = ? and mode
   * = ?` beside the id, a planner whose statistics are stale (a table that grew since its last analysis) has
   * read it through a composite index of (workspace_id, mode, ...) instead, filtering out the workspace's whole
   * history (lib/db/hot-queries.int.test.ts and its PostgreSQL 15 twin check the plan).
   */
  verificationWithConsent: (db: Db) => {
    const byId = db
      .select()
      .from(verifications)
      .where(eq(verifications.id, sql.placeholder('id')))
      .limit(1)
      .as('v');
    // The subquery's columns, under the table's own names and types (so the row maps as a VerificationRow).
    const v = Object.fromEntries(
      Object.keys(getTableColumns(verifications)).map((k) => [k, byId[k as keyof typeof byId]]),
    ) as unknown as typeof verifications._.columns;
    return db
      .select({ v, consent: consentRecords, dataKey: dataKeys })
      .from(byId)
      .leftJoin(consentRecords, eq(consentRecords.verificationId, v.id))
      .leftJoin(dataKeys, eq(dataKeys.verificationId, v.id))
      .where(and(eq(v.workspaceId, sql.placeholder('workspaceId')), eq(v.mode, sql.placeholder('mode'))))
      .orderBy(desc(consentRecords.acceptedAt))
      .limit(1)
      .prepare('ov_verification_with_consent');
  },

  /**
   * Creating a verification: the insert (a conflict means an idempotent retry), its data key when it arrives
   * with personal data (its external_metadata is sealed under it), and its audit entry, in one statement, so
   * they land together or not at all (a database lost between two statements left a verification without its
   * entry), in one round trip.
   */
  insertVerification: (db: Db) => {
    const inserted = db.$with('v').as(
      db
        .insert(verifications)
        .values({
          id: sql.placeholder('id'),
          workspaceId: sql.placeholder('workspaceId'),
          mode: sql.placeholder('mode'),
          status: 'created',
          flow: sql.placeholder('flow'),
          checkMethod: sql.placeholder('checkMethod'),
          externalId: sql.placeholder('externalId'),
          externalMetadataSealed: sql.placeholder('externalMetadataSealed'),
          returnUrl: sql.placeholder('returnUrl'),
          locale: sql.placeholder('locale'),
          captureTokenHash: sql.placeholder('captureTokenHash'),
          captureTokenCiphertext: sql.placeholder('captureTokenCiphertext'),
          idempotencyKey: sql.placeholder('idempotencyKey'),
          idempotencyHash: sql.placeholder('idempotencyHash'),
        })
        .onConflictDoNothing()
        .returning(),
    );
    const keyed = db.$with('k', {}).as(
      sql`insert into ${dataKeys} (verification_id, kek_id, wrapped)
            select v.id, ${sql.placeholder('kekId')}, ${sql.placeholder('wrappedKey')}::bytea
            from v where ${sql.placeholder('wrappedKey')}::bytea is not null`,
    );
    const audited = db.$with('a', {}).as(
      sql`insert into ${auditLog} (id, workspace_id, verification_id, actor, action, request_id, data)
            select ${sql.placeholder('auditId')}, v.workspace_id, v.id, ${sql.placeholder('actor')}, 'verification.created',
                   ${sql.placeholder('requestId')}, ${sql.placeholder('auditData')}::jsonb
            from v`,
    );
    return db.with(inserted, keyed, audited).select().from(inserted).prepare('ov_insert_verification');
  },

  insertAudit: (db: Db) =>
    db
      .insert(auditLog)
      .values({
        id: sql.placeholder('id'),
        workspaceId: sql.placeholder('workspaceId'),
        verificationId: sql.placeholder('verificationId'),
        actor: sql.placeholder('actor'),
        action: sql.placeholder('action'),
        requestId: sql.placeholder('requestId'),
        data: sql.placeholder('data'),
        dataSealed: sql.placeholder('dataSealed'),
      })
      .prepare('ov_insert_audit'),
};

type Builders = typeof BUILDERS;
type Name = keyof Builders;
const cache = new WeakMap<object, Map<Name, unknown>>();

/** The named prepared query for this client (a pool, or a transaction: they cannot cross clients). */
export function hot<K extends Name>(db: DbOrTx, name: K): ReturnType<Builders[K]> {
  let built = cache.get(db);
  if (!built) cache.set(db, (built = new Map()));
  if (!built.has(name)) built.set(name, BUILDERS[name](db as Db));
  return built.get(name) as ReturnType<Builders[K]>;
}

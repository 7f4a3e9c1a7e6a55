/**
 * A workspace run from the admin area (issue 15): the list an admin may manage, creation (operators), and
 * its API keys. Each function takes the Actor and checks lib/domain/admin/access.ts; anything out of reach is
 * NOT_FOUND. Writes call the same operations as the CLI (lib/domain/workspaces, lib/domain/auth/keys), audited with the admin.
 */
import { and, asc, eq, inArray, isNull, sql } from 'drizzle-orm';
import { secretKeys, workspaceMembers, workspaces } from '@/lib/db/schema';
import type { Db, DbOrTx } from '@/lib/db/client';
import { audit } from '../audit/audit';
import {
  activateSecretKey,
  createSecretKey,
  deleteSecretKey,
  listSecretKeys,
  MAX_SECRET_KEYS,
  secretKeyWorkspace,
  type Mode,
} from '../auth/keys';
import { notFound } from '../../core/errors';
import {
  createWorkspace,
  publicWorkspace,
  updateWorkspaceSettings,
  type SettingsPatch,
  type Workspace,
} from '../workspaces';
import { actorId, assertCan, assertOperator, can, workspacesFor, type Actor } from './access';

/** The workspaces whose pages the actor may open (operators: all), with their key and member counts. */
export async function listManagedWorkspaces(db: DbOrTx, actor: Actor) {
  const ids = workspacesFor(actor, 'workspace.read');
  if (ids.length === 0) return [];
  const rows = await db
    .select({
      id: workspaces.id,
      name: workspaces.name,
      apiKey: workspaces.apiKey,
      flow: workspaces.flow,
      checkMethod: workspaces.checkMethod,
      webhookUrl: workspaces.webhookUrl,
      createdAt: workspaces.createdAt,
      keys: sql<number>`(select count(*)::int from ${secretKeys} k where k.workspace_id = ${workspaces.id} and k.deleted_at is null)`,
      members: sql<number>`(select count(*)::int from ${workspaceMembers} m where m.workspace_id = ${workspaces.id})`,
    })
    .from(workspaces)
    .where(inArray(workspaces.id, ids))
    .orderBy(asc(workspaces.name));
  return rows.map((r) => ({
    ...r,
    role: actor.isOperator ? ('operator' as const) : actor.workspaces.find((w) => w.workspaceId === r.id)!.role,
  }));
}

/** A workspace the actor may run (`permission` there), or NOT_FOUND. */
export async function managedWorkspace(
  db: DbOrTx,
  actor: Actor,
  workspaceId: string,
  permission: Parameters<typeof can>[1] = 'workspace.read',
): Promise<Workspace> {
  assertCan(actor, permission, String(workspaceId), 'Workspace');
  const [ws] = await db
    .select()
    .from(workspaces)
    .where(eq(workspaces.id, String(workspaceId)));
  if (!ws) throw notFound('Workspace');
  return ws;
}

/** Operators create workspaces here as with `workspace:create`: one test and one live key, shown once. */
export async function createWorkspaceAs(
  db: Db,
  actor: Actor,
  input: { name: string; flow?: 'age' | 'kyc'; check_method?: 'estimation' | 'document_verification' },
) {
  assertOperator(actor, 'Workspace');
  const r = await createWorkspace(db, { ...input, actor: actorId(actor) });
  return { workspace: publicWorkspace(r.workspace), secretKeys: r.secretKeys };
}

/** The keys page: the public key, each secret key (never its secret) with mode, creation, last use and which is active. */
export async function keysFor(db: DbOrTx, actor: Actor, workspaceId: string) {
  const ws = await managedWorkspace(db, actor, workspaceId, 'keys.manage');
  const keys = await listSecretKeys(db, ws.id);
  return {
    workspace: { id: ws.id, name: ws.name, apiKey: ws.apiKey, enforceSignature: ws.enforceSignature },
    keys,
    max: MAX_SECRET_KEYS,
  };
}

/** A new key, its secret returned this once (the page shows it, then never again). */
export async function createKeyAs(db: Db, actor: Actor, input: { workspaceId: string; mode: Mode; active?: boolean }) {
  const ws = await managedWorkspace(db, actor, input.workspaceId, 'keys.manage');
  return db.transaction(async (tx) => {
    const key = await createSecretKey(tx, { workspaceId: ws.id, mode: input.mode, active: input.active });
    await audit(tx, {
      workspaceId: ws.id,
      actor: actorId(actor),
      action: 'key.created',
      data: { key: key.id, mode: key.mode, active: !!input.active },
    });
    return key;
  });
}

async function keyInReach(db: DbOrTx, actor: Actor, keyId: string) {
  const workspaceId = await secretKeyWorkspace(db, String(keyId)).catch(() => null);
  if (!workspaceId || !can(actor, 'keys.manage', workspaceId)) throw notFound('Secret key');
  return workspaceId;
}

export async function activateKeyAs(db: Db, actor: Actor, keyId: string) {
  const workspaceId = await keyInReach(db, actor, keyId);
  return db.transaction(async (tx) => {
    const [before] = await tx
      .select({ id: secretKeys.id })
      .from(secretKeys)
      .where(and(eq(secretKeys.workspaceId, workspaceId), eq(secretKeys.isActive, true), isNull(secretKeys.deletedAt)));
    const key = await activateSecretKey(tx, keyId);
    await audit(tx, {
      workspaceId,
      actor: actorId(actor),
      action: 'key.activated',
      data: { key: key.id, mode: key.mode, previous: before?.id ?? null },
    });
    return key;
  });
}

/** Deleting the active key is refused (KEY_ACTIVE) by lib/domain/auth/keys itself, for the CLI alike. */
export async function deleteKeyAs(db: Db, actor: Actor, keyId: string) {
  const workspaceId = await keyInReach(db, actor, keyId);
  return db.transaction(async (tx) => {
    const key = await deleteSecretKey(tx, keyId);
    await audit(tx, {
      workspaceId,
      actor: actorId(actor),
      action: 'key.deleted',
      data: { key: key.id, mode: key.mode },
    });
    return key;
  });
}

/** The settings page: the workspace's settings as the CLI prints them. */
export async function settingsFor(db: DbOrTx, actor: Actor, workspaceId: string) {
  return publicWorkspace(await managedWorkspace(db, actor, workspaceId, 'settings.manage'));
}

/** Settings changed through the same schema as `workspace:settings`; audited with each value before and after. */
export async function updateSettingsAs(db: Db, actor: Actor, workspaceId: string, patch: SettingsPatch) {
  const ws = await managedWorkspace(db, actor, workspaceId, 'settings.manage');
  return publicWorkspace(await updateWorkspaceSettings(db, ws.id, patch, actorId(actor)));
}

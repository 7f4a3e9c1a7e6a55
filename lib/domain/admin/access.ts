/**
 * Who may see and do what in the admin area. An admin is an operator (every workspace) or a member of
 * workspaces with a role. Every admin operation in lib/ takes the Actor and checks here; anything outside
 * the actor's reach is NOT_FOUND, exactly like an id that does not exist (nothing tells a reviewer of
 * workspace A that a case of workspace B exists).
 */
import { inArray, sql, type AnyColumn, type SQL } from 'drizzle-orm';
import type { WorkspaceRole } from '@/lib/db/schema';
import { notFound } from '../../core/errors';

export type Membership = { workspaceId: string; workspaceName: string; role: WorkspaceRole | 'operator' };

export type Actor = {
  userId: string;
  email: string;
  isOperator: boolean;
  sessionId: string;
  /** The workspaces this admin can open: every workspace for an operator (role `operator`). */
  workspaces: Membership[];
};

/**
 * What each workspace role may do; operators may do all of it everywhere. The owners' own (issue 15): their
 * workspace's keys, webhooks, settings, members and usage. Creating workspaces and publishing the consent
 * text (global) are operators' alone (`actor.isOperator`, lib/domain/admin/workspaces.ts and consent.ts).
 */
export const PERMISSIONS = {
  'case.read': ['owner', 'reviewer'],
  'case.decide': ['owner', 'reviewer'],
  'blocklist.read': ['owner', 'reviewer'],
  'blocklist.add': ['owner', 'reviewer'],
  'blocklist.remove': ['owner'],
  'audit.read': ['owner'],
  // Erasing a case's photos, faces and personal fields before its retention ends (lib/domain/retention).
  'case.erase': ['owner'],
  'workspace.read': ['owner'],
  'keys.manage': ['owner'],
  'webhooks.manage': ['owner'],
  'settings.manage': ['owner'],
  'members.manage': ['owner'],
  'usage.read': ['owner'],
} as const satisfies Record<string, readonly WorkspaceRole[]>;
export type Permission = keyof typeof PERMISSIONS;

/** How the audit log names an admin (audit_log.actor). */
export const actorId = (a: Pick<Actor, 'userId'>) => `admin:${a.userId}`;

export function can(actor: Actor, permission: Permission, workspaceId: string): boolean {
  if (actor.isOperator) return true;
  const m = actor.workspaces.find((w) => w.workspaceId === workspaceId);
  return !!m && m.role !== 'operator' && (PERMISSIONS[permission] as readonly string[]).includes(m.role);
}

/** NOT_FOUND unless the actor may do `permission` in the workspace (the same answer as a missing thing). */
export function assertCan(actor: Actor, permission: Permission, workspaceId: string, what = 'Resource'): void {
  if (!can(actor, permission, workspaceId)) throw notFound(what);
}

/** The workspaces where the actor may do `permission`, optionally narrowed to one (empty when not allowed there). */
export function workspacesFor(actor: Actor, permission: Permission, only?: string | null): string[] {
  const ids = actor.workspaces.filter((w) => can(actor, permission, w.workspaceId)).map((w) => w.workspaceId);
  return only ? ids.filter((id) => id === only) : ids;
}

/** Where a query may look: everywhere (an operator with no workspace chosen), or these workspaces. */
export type WorkspaceScope = { all: true } | { all: false; ids: string[] };

export function scopeFor(actor: Actor, permission: Permission, only?: string | null): WorkspaceScope {
  if (actor.isOperator && !only) return { all: true };
  return { all: false, ids: workspacesFor(actor, permission, only) };
}

/** The SQL condition of a scope on a workspace_id column (undefined: no condition). */
export const inScope = (scope: WorkspaceScope, column: AnyColumn): SQL | undefined =>
  scope.all ? undefined : scope.ids.length ? inArray(column, scope.ids) : sql`false`;

/** NOT_FOUND unless the actor is an operator (workspace creation, the global consent text). */
export function assertOperator(actor: Actor, what = 'Resource'): void {
  if (!actor.isOperator) throw notFound(what);
}

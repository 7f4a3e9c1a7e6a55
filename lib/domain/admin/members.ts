/**
 * A workspace's people (issue 15): its members and their roles, and invitations. An owner (or an operator)
 * invites an email as owner or reviewer: a one-time link, shown to the inviter and mailed when SMTP is
 * configured (lib/core/mail.ts). The person opens it, sets a password (or gives the one of the account they
 * have) and is signed in as a member. Role changes and removals go through setMembership (lib/domain/admin/users.ts,
 * the CLI's `admin:role`), which keeps one owner at least and ends the person's sessions.
 */
import { and, asc, eq, gt, isNull } from 'drizzle-orm';
import { z } from 'zod';
import {
  adminInvites,
  adminUsers,
  WORKSPACE_ROLES,
  workspaceMembers,
  workspaces,
  type WorkspaceRole,
} from '@/lib/db/schema';
import type { Db, DbOrTx } from '@/lib/db/client';
import { audit } from '../audit/audit';
import { sha256Hex } from '../../core/crypto/hash';
import { env } from '../../core/env';
import { DomainError, notFound, parseOrThrow } from '../../core/errors';
import { newId, randomToken } from '../../core/ids';
import { log } from '../../core/log';
import { mailConfigured, sendMail } from '../../core/mail';
import { DAY_MS } from '../../core/time';
import { actorId, type Actor } from './access';
import { createAdmin, setMembership } from './users';
import { managedWorkspace } from './workspaces';

/** How long an invitation link works. */
export const INVITE_DAYS = 7;
export const inviteLink = (token: string) => `${env().BASE_URL}/admin/invite/${token}`;

export async function membersFor(db: DbOrTx, actor: Actor, workspaceId: string, now = new Date()) {
  const ws = await managedWorkspace(db, actor, workspaceId, 'members.manage');
  const members = await db
    .select({
      id: adminUsers.id,
      email: adminUsers.email,
      role: workspaceMembers.role,
      since: workspaceMembers.createdAt,
      createdBy: workspaceMembers.createdBy,
    })
    .from(workspaceMembers)
    .innerJoin(adminUsers, eq(adminUsers.id, workspaceMembers.adminUserId))
    .where(eq(workspaceMembers.workspaceId, ws.id))
    .orderBy(asc(adminUsers.email));
  const invites = await db
    .select({
      id: adminInvites.id,
      email: adminInvites.email,
      role: adminInvites.role,
      createdAt: adminInvites.createdAt,
      expiresAt: adminInvites.expiresAt,
      createdBy: adminInvites.createdBy,
    })
    .from(adminInvites)
    .where(
      and(
        eq(adminInvites.workspaceId, ws.id),
        isNull(adminInvites.acceptedAt),
        isNull(adminInvites.revokedAt),
        gt(adminInvites.expiresAt, now),
      ),
    )
    .orderBy(asc(adminInvites.createdAt));
  const owners = members.filter((m) => m.role === 'owner').length;
  return { workspace: { id: ws.id, name: ws.name }, members, invites, owners, mail: mailConfigured() };
}

const inviteInput = z.object({
  email: z
    .email('An email address.')
    .max(320)
    .transform((e) => e.trim().toLowerCase()),
  role: z.enum(WORKSPACE_ROLES, 'Owner or reviewer.'),
});

/** A new invitation: the link (with its token) is returned this once; only the token's hash is kept. */
export async function inviteMember(
  db: Db,
  actor: Actor,
  input: { workspaceId: string; email: string; role: WorkspaceRole },
  now = new Date(),
) {
  const ws = await managedWorkspace(db, actor, input.workspaceId, 'members.manage');
  const v = parseOrThrow(inviteInput, { email: input.email, role: input.role });
  const [member] = await db
    .select({ id: adminUsers.id })
    .from(workspaceMembers)
    .innerJoin(adminUsers, eq(adminUsers.id, workspaceMembers.adminUserId))
    .where(and(eq(workspaceMembers.workspaceId, ws.id), eq(adminUsers.email, v.email)));
  if (member)
    throw new DomainError('VALIDATION_ERROR', 'This person is a member already: change their role instead.', {
      fields: { email: ['Already a member.'] },
    });
  const token = randomToken();
  const id = newId('inv');
  const expiresAt = new Date(now.getTime() + INVITE_DAYS * DAY_MS);
  await db.transaction(async (tx) => {
    await tx.insert(adminInvites).values({
      id,
      workspaceId: ws.id,
      email: v.email,
      role: v.role,
      tokenHash: sha256Hex(token),
      createdBy: actorId(actor),
      createdAt: now,
      expiresAt,
    });
    await audit(tx, {
      workspaceId: ws.id,
      actor: actorId(actor),
      action: 'admin.invited',
      data: { invite: id, email: v.email, role: v.role, expires_at: expiresAt.toISOString() },
    });
  });
  const link = inviteLink(token);
  let emailed: { sent: boolean; error?: string } = { sent: false };
  if (mailConfigured()) {
    try {
      await sendMail({
        to: v.email,
        subject: `You are invited to ${ws.name} on Open Verify`,
        text: `${actor.email} invited you to the workspace "${ws.name}" as ${v.role}.\n\nOpen this link within ${INVITE_DAYS} days to set your password and sign in (it works once):\n\n${link}\n\nIf you did not expect this, ignore this email.\n`,
      });
      emailed = { sent: true };
    } catch (e) {
      log.warn('invitation email not sent', { invite: id, error: (e as Error).message });
      emailed = { sent: false, error: (e as Error).message };
    }
  }
  return { id, email: v.email, role: v.role, link, expiresAt, emailed };
}

export async function revokeInvite(db: Db, actor: Actor, inviteId: string) {
  const [inv] = await db
    .select()
    .from(adminInvites)
    .where(eq(adminInvites.id, String(inviteId)));
  if (!inv) throw notFound('Invitation');
  await managedWorkspace(db, actor, inv.workspaceId, 'members.manage');
  await db
    .update(adminInvites)
    .set({ revokedAt: new Date() })
    .where(and(eq(adminInvites.id, inv.id), isNull(adminInvites.acceptedAt)));
  await audit(db, {
    workspaceId: inv.workspaceId,
    actor: actorId(actor),
    action: 'admin.invite_revoked',
    data: { invite: inv.id, email: inv.email },
  });
}

/** An open invitation by its link's token (public: the invite page), or null when unknown, used, revoked or expired. */
export async function openInvite(db: DbOrTx, token: string, now = new Date()) {
  if (typeof token !== 'string' || token.length < 20 || token.length > 200) return null;
  const [inv] = await db
    .select()
    .from(adminInvites)
    .where(eq(adminInvites.tokenHash, sha256Hex(token)));
  if (!inv || inv.acceptedAt || inv.revokedAt || inv.expiresAt <= now) return null;
  const [existing] = await db
    .select({ id: adminUsers.id, hasPassword: adminUsers.passwordHash })
    .from(adminUsers)
    .where(eq(adminUsers.email, inv.email));
  const [ws] = await db.select({ name: workspaces.name }).from(workspaces).where(eq(workspaces.id, inv.workspaceId));
  return {
    id: inv.id,
    workspaceId: inv.workspaceId,
    workspaceName: ws?.name ?? '',
    email: inv.email,
    role: inv.role,
    expiresAt: inv.expiresAt,
    existingAccount: !!existing,
    hasPassword: !!existing?.hasPassword,
  };
}

/**
 * Accepting: the invitation is used once (a conditional update), then the person becomes a member: a new
 * admin with the password chosen here, or, for an email that has an account, that account (whose password
 * the invite page checks through the ordinary sign-in step first, so the throttle applies).
 */
export async function acceptInvite(
  db: Db,
  input: { token: string; password?: string; existingUserId?: string },
  now = new Date(),
) {
  const inv = await openInvite(db, input.token, now);
  if (!inv) throw notFound('Invitation');
  return db.transaction(async (tx) => {
    const [used] = await tx
      .update(adminInvites)
      .set({ acceptedAt: now })
      .where(
        and(
          eq(adminInvites.id, inv.id),
          isNull(adminInvites.acceptedAt),
          isNull(adminInvites.revokedAt),
          gt(adminInvites.expiresAt, now),
        ),
      )
      .returning();
    if (!used) throw notFound('Invitation');
    let userId: string;
    if (inv.existingAccount) {
      const [u] = await tx.select({ id: adminUsers.id }).from(adminUsers).where(eq(adminUsers.email, inv.email));
      if (!input.existingUserId || input.existingUserId !== u.id)
        throw new DomainError('VALIDATION_ERROR', 'Sign in as the invited account first.', {
          fields: { password: ['Not right.'] },
        });
      userId = u.id;
      await tx
        .insert(workspaceMembers)
        .values({ workspaceId: inv.workspaceId, adminUserId: userId, role: inv.role, createdBy: `invite:${inv.id}` })
        .onConflictDoUpdate({
          target: [workspaceMembers.workspaceId, workspaceMembers.adminUserId],
          set: { role: inv.role },
        });
    } else {
      const created = await createAdmin(
        tx as unknown as Db,
        { email: inv.email, password: input.password, workspaceId: inv.workspaceId, role: inv.role },
        `invite:${inv.id}`,
      );
      userId = created.id;
    }
    await tx.update(adminInvites).set({ acceptedBy: userId }).where(eq(adminInvites.id, inv.id));
    await audit(tx, {
      workspaceId: inv.workspaceId,
      actor: `admin:${userId}`,
      action: 'admin.invite_accepted',
      data: { invite: inv.id, email: inv.email, role: inv.role, new_account: !inv.existingAccount },
    });
    return { userId, email: inv.email, workspaceId: inv.workspaceId, role: inv.role };
  });
}

async function memberEmail(db: DbOrTx, workspaceId: string, adminUserId: string) {
  const [m] = await db
    .select({ email: adminUsers.email })
    .from(workspaceMembers)
    .innerJoin(adminUsers, eq(adminUsers.id, workspaceMembers.adminUserId))
    .where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.adminUserId, String(adminUserId))));
  if (!m) throw notFound('Member');
  return m.email;
}

/** A new role (the last owner cannot be demoted: LAST_OWNER); the member's sessions end. */
export async function changeRoleAs(
  db: Db,
  actor: Actor,
  input: { workspaceId: string; adminUserId: string; role: WorkspaceRole },
) {
  const ws = await managedWorkspace(db, actor, input.workspaceId, 'members.manage');
  const email = await memberEmail(db, ws.id, input.adminUserId);
  return setMembership(db, {
    email,
    workspaceId: ws.id,
    role: parseOrThrow(z.enum(WORKSPACE_ROLES), input.role),
    actor: actorId(actor),
  });
}

/** Removal (never the last owner: LAST_OWNER); every session of the person ends at once. */
export async function removeMemberAs(db: Db, actor: Actor, input: { workspaceId: string; adminUserId: string }) {
  const ws = await managedWorkspace(db, actor, input.workspaceId, 'members.manage');
  const email = await memberEmail(db, ws.id, input.adminUserId);
  return setMembership(db, { email, workspaceId: ws.id, role: null, actor: actorId(actor) });
}

export async function adminIdByEmail(db: DbOrTx, email: string): Promise<string | null> {
  const [u] = await db.select({ id: adminUsers.id }).from(adminUsers).where(eq(adminUsers.email, email.toLowerCase()));
  return u?.id ?? null;
}

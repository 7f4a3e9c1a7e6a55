/**
 * Admin users and their access: created and changed by an operator (the CLI today; issue 15's pages
 * call the same functions). Any change to a password, the operator role or a membership signs the user
 * out everywhere, in the same transaction.
 */
import { and, asc, eq } from 'drizzle-orm';
import { z } from 'zod';
import { adminUsers, WORKSPACE_ROLES, workspaceMembers, workspaces, type WorkspaceRole } from '@/lib/db/schema';
import type { Db, DbOrTx } from '@/lib/db/client';
import { DomainError, notFound, parseOrThrow } from '../../core/errors';
import { hashPassword, verifyPassword } from '../../core/crypto/hash';
import { newId } from '../../core/ids';
import { audit } from '../audit/audit';
import { revokeSession, revokeUserSessions } from './auth/sessions';

const email = z
  .email()
  .max(320)
  .transform((e) => e.toLowerCase());
const password = z.string().min(12, 'At least 12 characters.').max(200);

const adminInput = z
  .object({
    email,
    /** Omitted: the admin signs in by single sign-on only. */
    password: password.optional(),
    operator: z.boolean().default(false),
    workspaceId: z.string().min(1).optional(),
    role: z.enum(WORKSPACE_ROLES).optional(),
    requireTotp: z.boolean().default(false),
  })
  .refine((v) => !v.workspaceId === !v.role, { message: 'A workspace and a role go together.', path: ['role'] });

export type CreateAdminInput = z.input<typeof adminInput>;

export async function createAdmin(db: Db, input: CreateAdminInput, actor = 'operator') {
  const v = parseOrThrow(adminInput, input);
  const id = newId('adm');
  const passwordHash = v.password ? await hashPassword(v.password) : null;
  return db.transaction(async (tx) => {
    if (v.workspaceId) await workspaceOrThrow(tx, v.workspaceId);
    const rows = await tx
      .insert(adminUsers)
      .values({
        id,
        email: v.email,
        passwordHash,
        isOperator: v.operator,
        totpRequired: v.requireTotp,
        passwordChangedAt: passwordHash ? new Date() : null,
      })
      .onConflictDoNothing()
      .returning();
    if (rows.length === 0)
      throw new DomainError('VALIDATION_ERROR', 'An admin with this email exists.', {
        fields: { email: ['Already exists.'] },
      });
    if (v.workspaceId && v.role)
      await tx
        .insert(workspaceMembers)
        .values({ workspaceId: v.workspaceId, adminUserId: id, role: v.role, createdBy: actor });
    await audit(tx, {
      actor,
      workspaceId: v.workspaceId ?? null,
      action: 'admin.created',
      data: {
        id,
        email: v.email,
        operator: v.operator,
        workspace: v.workspaceId ?? null,
        role: v.role ?? null,
        require_totp: v.requireTotp,
        sso_only: !passwordHash,
      },
    });
    return { id, email: v.email, operator: v.operator, created_at: rows[0].createdAt.toISOString() };
  });
}

/** For the admin sign-in: the admin when the password matches, otherwise null (same time either way). */
export async function checkAdminPassword(db: DbOrTx, emailAddress: string, plain: string) {
  const [row] = await db.select().from(adminUsers).where(eq(adminUsers.email, emailAddress.toLowerCase()));
  const ok = await verifyPassword(plain, row?.passwordHash ?? DUMMY_HASH);
  return row?.passwordHash && ok ? { id: row.id, email: row.email } : null;
}

const DUMMY_HASH = 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';

async function userByEmail(db: DbOrTx, e: string) {
  const [u] = await db
    .select()
    .from(adminUsers)
    .where(eq(adminUsers.email, parseOrThrow(email, e.trim())));
  if (!u) throw notFound('Admin');
  return u;
}

async function workspaceOrThrow(db: DbOrTx, id: string) {
  const [w] = await db.select({ id: workspaces.id }).from(workspaces).where(eq(workspaces.id, id));
  if (!w) throw notFound('Workspace');
}

/** A new password (`admin:reset-password`, or the admin's own change): every session of the user ends. */
export async function setAdminPassword(
  db: Db,
  input: { email: string; password: string; actor: string; keepSession?: string },
) {
  const pw = parseOrThrow(z.object({ password }), { password: input.password }).password;
  const hash = await hashPassword(pw);
  return db.transaction(async (tx) => {
    const u = await userByEmail(tx, input.email);
    await tx
      .update(adminUsers)
      .set({ passwordHash: hash, passwordChangedAt: new Date(), updatedAt: new Date() })
      .where(eq(adminUsers.id, u.id));
    const ended = await revokeUserSessions(tx, u.id, 'password_changed', { except: input.keepSession });
    await audit(tx, {
      actor: input.actor,
      action: 'admin.password_changed',
      data: { admin: u.id, email: u.email, sessions_ended: ended },
    });
    return { id: u.id, email: u.email, sessions_ended: ended };
  });
}

/** The admin's own change on the account page: the current password first; other browsers are signed out. */
export async function changeOwnPassword(
  db: Db,
  input: { userId: string; sessionId: string; current: string; next: string },
) {
  const [u] = await db.select().from(adminUsers).where(eq(adminUsers.id, input.userId));
  if (!u?.passwordHash || !(await verifyPassword(input.current, u.passwordHash))) {
    throw new DomainError('VALIDATION_ERROR', 'The current password is not right.', {
      fields: { current: ['Not right.'] },
    });
  }
  return setAdminPassword(db, {
    email: u.email,
    password: input.next,
    actor: `admin:${u.id}`,
    keepSession: input.sessionId,
  });
}

/** Makes an admin an operator of every workspace, or takes it away. */
export async function setOperator(db: Db, input: { email: string; operator: boolean; actor: string }) {
  return db.transaction(async (tx) => {
    const u = await userByEmail(tx, input.email);
    await tx
      .update(adminUsers)
      .set({ isOperator: input.operator, updatedAt: new Date() })
      .where(eq(adminUsers.id, u.id));
    const ended = await revokeUserSessions(tx, u.id, 'role_changed');
    await audit(tx, {
      actor: input.actor,
      action: 'admin.role_changed',
      data: { admin: u.id, email: u.email, operator: input.operator, sessions_ended: ended },
    });
    return { id: u.id, email: u.email, operator: input.operator, sessions_ended: ended };
  });
}

/** Adds a member, changes their role, or (role null) removes them from the workspace. */
export async function setMembership(
  db: Db,
  input: { email: string; workspaceId: string; role: WorkspaceRole | null; actor: string },
) {
  const role = input.role === null ? null : parseOrThrow(z.enum(WORKSPACE_ROLES), input.role);
  return db.transaction(async (tx) => {
    const u = await userByEmail(tx, input.email);
    await workspaceOrThrow(tx, input.workspaceId);
    const where = and(eq(workspaceMembers.workspaceId, input.workspaceId), eq(workspaceMembers.adminUserId, u.id));
    // The last owner stays: neither removed nor demoted (the owners' rows locked, so two changes cannot both pass).
    const owners = await tx
      .select({ id: workspaceMembers.adminUserId })
      .from(workspaceMembers)
      .where(and(eq(workspaceMembers.workspaceId, input.workspaceId), eq(workspaceMembers.role, 'owner')))
      .for('update');
    if (role !== 'owner' && owners.length === 1 && owners[0].id === u.id) {
      throw new DomainError('LAST_OWNER', "This is the workspace's last owner: make someone else an owner first.", {
        email: u.email,
      });
    }
    if (role === null) {
      const gone = await tx.delete(workspaceMembers).where(where).returning();
      if (gone.length === 0) throw notFound('Membership');
    } else {
      await tx
        .insert(workspaceMembers)
        .values({ workspaceId: input.workspaceId, adminUserId: u.id, role, createdBy: input.actor })
        .onConflictDoUpdate({ target: [workspaceMembers.workspaceId, workspaceMembers.adminUserId], set: { role } });
    }
    const ended = await revokeUserSessions(tx, u.id, 'membership_changed');
    await audit(tx, {
      actor: input.actor,
      workspaceId: input.workspaceId,
      action: role ? 'admin.membership_set' : 'admin.membership_removed',
      data: { admin: u.id, email: u.email, role, sessions_ended: ended },
    });
    return { id: u.id, email: u.email, workspace_id: input.workspaceId, role, sessions_ended: ended };
  });
}

/** Sign out everywhere (`admin:sign-out`, or the account page for oneself). */
export async function signOutEverywhere(db: Db, input: { email: string; actor: string }) {
  return db.transaction(async (tx) => {
    const u = await userByEmail(tx, input.email);
    const ended = await revokeUserSessions(tx, u.id, 'signed_out_everywhere');
    await audit(tx, {
      actor: input.actor,
      action: 'admin.signed_out_everywhere',
      data: { admin: u.id, email: u.email, sessions_ended: ended },
    });
    return { id: u.id, email: u.email, sessions_ended: ended };
  });
}

/** Sign out of this browser: its session ends, and the audit log records it (the admin area's sign-out button). */
export async function signOutSession(db: Db, input: { userId: string; sessionId: string }) {
  await db.transaction(async (tx) => {
    await revokeSession(tx, input.sessionId, 'signed_out');
    await audit(tx, { actor: `admin:${input.userId}`, action: 'admin.signed_out', data: { session: input.sessionId } });
  });
}

/** Every admin with their role and memberships (`admin:list`; never a hash or secret). */
export async function listAdmins(db: DbOrTx) {
  const users = await db.select().from(adminUsers).orderBy(asc(adminUsers.email));
  const members = await db.select().from(workspaceMembers);
  return users.map((u) => ({
    id: u.id,
    email: u.email,
    operator: u.isOperator,
    password: !!u.passwordHash,
    totp: !!u.totpSecret,
    totp_required: u.totpRequired,
    workspaces: members
      .filter((m) => m.adminUserId === u.id)
      .map((m) => ({ workspace_id: m.workspaceId, role: m.role })),
  }));
}

/** What the account page shows of the admin's own security: whether they have a password (not its hash), and since when two-factor is on. */
export async function accountSecurity(
  db: DbOrTx,
  userId: string,
): Promise<{ hasPassword: boolean; totpEnabledAt: Date | null }> {
  const [u] = await db
    .select({ passwordHash: adminUsers.passwordHash, totpEnabledAt: adminUsers.totpEnabledAt })
    .from(adminUsers)
    .where(eq(adminUsers.id, userId));
  return { hasPassword: !!u?.passwordHash, totpEnabledAt: u?.totpEnabledAt ?? null };
}

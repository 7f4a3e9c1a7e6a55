/**
 * Admin sessions. Auth.js keeps an encrypted JWT in an HttpOnly cookie holding only the id of a row
 * here; every admin request reads the row (with the user and their workspaces), so a session is valid
 * only while its row says so: not revoked, used within the idle limit, younger than the absolute limit.
 * Revoking the rows of a user ("sign out everywhere") takes effect on their next request, whatever
 * cookies they hold. Password, role and membership changes revoke in the same transaction.
 */
import { and, asc, eq, gt, isNull, ne, sql } from 'drizzle-orm';
import { adminSessions, adminUsers, workspaceMembers, workspaces } from '@/lib/db/schema';
import type { DbOrTx } from '@/lib/db/client';
import { sha256Hex } from '../../../core/crypto/hash';
import { env } from '../../../core/env';
import { newId, randomToken } from '../../../core/ids';
import type { Actor, Membership } from '../access';

export type SessionStage = (typeof adminSessions.$inferSelect)['stage'];
export type SessionMethod = (typeof adminSessions.$inferSelect)['method'];

/** A ticket hands a new session to Auth.js (in the same server action): valid this long, once. */
const TICKET_SECONDS = 60;
/** last_seen_at is written at most this often, so an active admin costs one write a minute, not one a request. */
const TOUCH_SECONDS = 60;

export const sessionLimits = () => ({
  idleMs: env().ADMIN_SESSION_IDLE_MINUTES * 60_000,
  maxMs: env().ADMIN_SESSION_MAX_HOURS * 3_600_000,
});

export async function createSession(
  db: DbOrTx,
  input: {
    userId: string;
    method: SessionMethod;
    stage: SessionStage;
    ip: string | null;
    userAgent: string | null;
    now: Date;
  },
): Promise<{ id: string; ticket: string }> {
  const id = newId('ses');
  const ticket = randomToken();
  await db.insert(adminSessions).values({
    id,
    adminUserId: input.userId,
    method: input.method,
    stage: input.stage,
    ticketHash: sha256Hex(ticket),
    createdAt: input.now,
    lastSeenAt: input.now,
    expiresAt: new Date(input.now.getTime() + sessionLimits().maxMs),
    ip: input.ip,
    userAgent: input.userAgent?.slice(0, 300) ?? null,
  });
  return { id, ticket };
}

/** The session a ticket names, once, within TICKET_SECONDS of its creation; null otherwise. */
export async function redeemTicket(
  db: DbOrTx,
  ticket: string,
  now: Date,
): Promise<{ sessionId: string; userId: string } | null> {
  if (typeof ticket !== 'string' || ticket.length < 20) return null;
  const [row] = await db
    .update(adminSessions)
    .set({ ticketHash: null })
    .where(
      and(
        eq(adminSessions.ticketHash, sha256Hex(ticket)),
        gt(adminSessions.createdAt, new Date(now.getTime() - TICKET_SECONDS * 1000)),
        isNull(adminSessions.revokedAt),
      ),
    )
    .returning({ id: adminSessions.id, userId: adminSessions.adminUserId });
  return row ? { sessionId: row.id, userId: row.userId } : null;
}

export type LoadedSession = {
  actor: Actor;
  stage: SessionStage;
  method: SessionMethod;
  totpEnabled: boolean;
  totpRequired: boolean;
};

/**
 * The signed-in admin of a session id, or null when the session is unknown, revoked, idle too long or too
 * old (an idle or expired session is marked revoked, so it shows as ended in the account page).
 */
export async function loadSession(db: DbOrTx, sessionId: string, now: Date): Promise<LoadedSession | null> {
  if (typeof sessionId !== 'string' || !sessionId.startsWith('ses_')) return null;
  const [row] = await db
    .select({ s: adminSessions, u: adminUsers })
    .from(adminSessions)
    .innerJoin(adminUsers, eq(adminUsers.id, adminSessions.adminUserId))
    .where(eq(adminSessions.id, sessionId));
  if (!row || row.s.revokedAt || row.s.ticketHash) return null;
  const { idleMs } = sessionLimits();
  const idle = now.getTime() - row.s.lastSeenAt.getTime() > idleMs;
  const expired = now.getTime() >= row.s.expiresAt.getTime();
  if (idle || expired) {
    await revokeSession(db, sessionId, idle ? 'idle' : 'expired', now);
    return null;
  }
  if (now.getTime() - row.s.lastSeenAt.getTime() > TOUCH_SECONDS * 1000) {
    await db.update(adminSessions).set({ lastSeenAt: now }).where(eq(adminSessions.id, sessionId));
  }
  return {
    actor: {
      userId: row.u.id,
      email: row.u.email,
      isOperator: row.u.isOperator,
      sessionId,
      workspaces: await workspacesOf(db, row.u),
    },
    stage: row.s.stage,
    method: row.s.method,
    totpEnabled: !!row.u.totpSecret,
    totpRequired: row.u.totpRequired || env().ADMIN_REQUIRE_TOTP === '1',
  };
}

/** An operator's: every workspace; a member's: their memberships. By name. */
async function workspacesOf(db: DbOrTx, u: { id: string; isOperator: boolean }): Promise<Membership[]> {
  if (u.isOperator) {
    const all = await db
      .select({ workspaceId: workspaces.id, workspaceName: workspaces.name })
      .from(workspaces)
      .orderBy(asc(workspaces.name), asc(workspaces.id));
    return all.map((w) => ({ ...w, role: 'operator' as const }));
  }
  return db
    .select({ workspaceId: workspaces.id, workspaceName: workspaces.name, role: workspaceMembers.role })
    .from(workspaceMembers)
    .innerJoin(workspaces, eq(workspaces.id, workspaceMembers.workspaceId))
    .where(eq(workspaceMembers.adminUserId, u.id))
    .orderBy(asc(workspaces.name), asc(workspaces.id));
}

export async function setSessionStage(db: DbOrTx, sessionId: string, stage: SessionStage): Promise<void> {
  await db.update(adminSessions).set({ stage }).where(eq(adminSessions.id, sessionId));
}

export async function revokeSession(db: DbOrTx, sessionId: string, reason: string, now = new Date()): Promise<void> {
  await db
    .update(adminSessions)
    .set({ revokedAt: now, revokedReason: reason })
    .where(and(eq(adminSessions.id, sessionId), isNull(adminSessions.revokedAt)));
}

/** Signs a user out everywhere (but `except`, the session asking, when given). Returns how many ended. */
export async function revokeUserSessions(
  db: DbOrTx,
  userId: string,
  reason: string,
  opts: { except?: string; now?: Date } = {},
): Promise<number> {
  const rows = await db
    .update(adminSessions)
    .set({ revokedAt: opts.now ?? new Date(), revokedReason: reason })
    .where(
      and(
        eq(adminSessions.adminUserId, userId),
        isNull(adminSessions.revokedAt),
        opts.except ? ne(adminSessions.id, opts.except) : sql`true`,
      ),
    )
    .returning({ id: adminSessions.id });
  return rows.length;
}

/** A user's sessions still open, newest first (the account page). */
export async function listOpenSessions(db: DbOrTx, userId: string, now: Date) {
  const { idleMs } = sessionLimits();
  const rows = await db
    .select()
    .from(adminSessions)
    .where(
      and(
        eq(adminSessions.adminUserId, userId),
        isNull(adminSessions.revokedAt),
        isNull(adminSessions.ticketHash),
        gt(adminSessions.expiresAt, now),
        gt(adminSessions.lastSeenAt, new Date(now.getTime() - idleMs)),
      ),
    )
    .orderBy(sql`${adminSessions.lastSeenAt} desc`);
  return rows.map((r) => ({
    id: r.id,
    method: r.method,
    createdAt: r.createdAt,
    lastSeenAt: r.lastSeenAt,
    ip: r.ip,
    userAgent: r.userAgent,
  }));
}

/**
 * The admin area's people and their access: admin users (password and second factor), their role
 * (operator of every workspace, or member of workspaces as owner or reviewer), their sessions (revocable,
 * expiring after inactivity) and the sign-in throttle. Issue 15 builds the owners' pages on these tables.
 */
import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { ts } from './columns';
import { workspaces } from './workspaces';

export const adminUsers = pgTable('admin_users', {
  id: text('id').primaryKey(),
  email: text('email').notNull().unique(),
  /** scrypt$N$r$p$salt$hash; null for a user who signs in by single sign-on only. */
  passwordHash: text('password_hash'),
  /** Sees and acts on every workspace (and on admin users, from issue 15 on). */
  isOperator: boolean('is_operator').notNull().default(false),
  /** TOTP secret, AES-256-GCM under ENCRYPTION_KEY; null until enrolment is confirmed with a code. */
  totpSecret: text('totp_secret'),
  /** A secret shown during enrolment, not yet confirmed with a code. */
  totpPending: text('totp_pending'),
  totpEnabledAt: ts('totp_enabled_at'),
  /** The last 30-second step a code was accepted for: a code is never accepted twice. */
  totpLastStep: bigint('totp_last_step', { mode: 'number' }),
  /** This user must use a second factor (ADMIN_REQUIRE_TOTP=1 requires it of everyone). */
  totpRequired: boolean('totp_required').notNull().default(false),
  passwordChangedAt: ts('password_changed_at'),
  createdAt: ts('created_at').notNull().defaultNow(),
  updatedAt: ts('updated_at').notNull().defaultNow(),
});

export type AdminUser = typeof adminUsers.$inferSelect;

export const WORKSPACE_ROLES = ['owner', 'reviewer'] as const;
export type WorkspaceRole = (typeof WORKSPACE_ROLES)[number];

export const workspaceMembers = pgTable(
  'workspace_members',
  {
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    adminUserId: text('admin_user_id')
      .notNull()
      .references(() => adminUsers.id, { onDelete: 'cascade' }),
    role: text('role', { enum: WORKSPACE_ROLES }).notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
    /** Who added the member: `operator` (CLI) or `admin:<id>`. */
    createdBy: text('created_by').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.workspaceId, t.adminUserId] }),
    index('workspace_members_user_idx').on(t.adminUserId),
  ],
);

/**
 * One row per signed-in browser. The Auth.js cookie (an encrypted JWT) carries only this row's id; every
 * admin request reads the row, so revoking it signs that browser out at once. `stage`: `second_factor`
 * (password accepted, a code is still due), `enrol` (a second factor is required and not set up yet),
 * `full`.
 */
export const adminSessions = pgTable(
  'admin_sessions',
  {
    id: text('id').primaryKey(),
    adminUserId: text('admin_user_id')
      .notNull()
      .references(() => adminUsers.id, { onDelete: 'cascade' }),
    method: text('method', { enum: ['password', 'oidc'] }).notNull(),
    stage: text('stage', { enum: ['second_factor', 'enrol', 'full'] }).notNull(),
    /** SHA-256 of the one-time ticket that hands this session to Auth.js; null once redeemed. */
    ticketHash: text('ticket_hash'),
    createdAt: ts('created_at').notNull().defaultNow(),
    lastSeenAt: ts('last_seen_at').notNull().defaultNow(),
    expiresAt: ts('expires_at').notNull(),
    revokedAt: ts('revoked_at'),
    revokedReason: text('revoked_reason'),
    ip: text('ip'),
    userAgent: text('user_agent'),
  },
  (t) => [
    index('admin_sessions_user_idx').on(t.adminUserId),
    uniqueIndex('admin_sessions_ticket_idx')
      .on(t.ticketHash)
      .where(sql`${t.ticketHash} is not null`),
  ],
);

/** Single-use recovery codes (SHA-256 of each; they are random, 50 bits, so no slow hash is needed). */
export const adminRecoveryCodes = pgTable(
  'admin_recovery_codes',
  {
    adminUserId: text('admin_user_id')
      .notNull()
      .references(() => adminUsers.id, { onDelete: 'cascade' }),
    codeHash: text('code_hash').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.adminUserId, t.codeHash] })],
);

/**
 * Failed sign-ins per key (`account:<email>` or `address:<ip>`) in a rolling window, and a lock when there
 * were too many. Kept in Postgres so every server instance counts the same attempts.
 */
export const adminSignInThrottle = pgTable('admin_sign_in_throttle', {
  key: text('key').primaryKey(),
  failures: integer('failures').notNull(),
  windowStartedAt: ts('window_started_at').notNull(),
  lockedUntil: ts('locked_until'),
});

/**
 * An invitation to a workspace (issue 15): an owner or operator names an email and a role, and the person
 * opens a one-time link (`/admin/invite/{token}`; only the token's SHA-256 is stored) to set a password, or
 * to join with the account they have. Used once, until it expires, unless revoked.
 */
export const adminInvites = pgTable(
  'admin_invites',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    email: text('email').notNull(),
    role: text('role', { enum: WORKSPACE_ROLES }).notNull(),
    tokenHash: text('token_hash').notNull().unique(),
    /** `admin:<id>` of who invited. */
    createdBy: text('created_by').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
    expiresAt: ts('expires_at').notNull(),
    acceptedAt: ts('accepted_at'),
    acceptedBy: text('accepted_by'),
    revokedAt: ts('revoked_at'),
  },
  (t) => [index('admin_invites_workspace_idx').on(t.workspaceId, t.createdAt)],
);

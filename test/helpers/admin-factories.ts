/** The admin area's test world: admins with roles and signed-in sessions, and cases waiting for review. */
import { eq } from 'drizzle-orm';
import { getDb, type Db } from '@/lib/db/client';
import { media, verifications, type WorkspaceRole } from '@/lib/db/schema';
import { createAdmin, setMembership } from '@/lib/domain/admin/users';
import { createSession, loadSession, redeemTicket } from '@/lib/domain/admin/auth/sessions';
import type { Actor } from '@/lib/domain/admin/access';
import { mediaStore } from '@/lib/domain/media/storage';
import { captureTokenHash } from '@/lib/domain/capture/auth';
import { newId, randomToken, uuidv7 } from '@/lib/core/ids';

export const ADMIN_PASSWORD = 'correct horse battery staple';

/** An admin (operator, or member of the given workspaces) with a signed-in session; returns the Actor. */
export async function makeAdmin(
  opts: { operator?: boolean; workspaces?: [string, WorkspaceRole][]; db?: Db } = {},
): Promise<Actor & { password: string }> {
  const db = opts.db ?? getDb();
  const email = `admin-${Math.random().toString(36).slice(2, 10)}@example.com`;
  const a = await createAdmin(db, { email, password: ADMIN_PASSWORD, operator: !!opts.operator });
  for (const [workspaceId, role] of opts.workspaces ?? [])
    await setMembership(db, { email, workspaceId, role, actor: 'operator' });
  const s = await createSession(db, {
    userId: a.id,
    method: 'password',
    stage: 'full',
    ip: '127.0.0.1',
    userAgent: 'test',
    now: new Date(),
  });
  await redeemTicket(db, s.ticket, new Date());
  const loaded = await loadSession(db, s.id, new Date());
  if (!loaded) throw new Error('session did not load');
  return { ...loaded.actor, password: ADMIN_PASSWORD };
}

/**
 * A verification waiting in `review`, written directly (no upload pipeline: the admin area only reads it),
 * with a selfie whose bytes are stored encrypted like a real upload's.
 */
export async function makeReviewCase(
  workspaceId: string,
  mode: 'test' | 'live',
  opts: {
    db?: Db;
    externalId?: string;
    inReviewSince?: Date;
    selfie?: Buffer;
    status?: 'review' | 'approved' | 'declined' | 'started';
  } = {},
) {
  const db = opts.db ?? getDb();
  const id = uuidv7();
  const at = opts.inReviewSince ?? new Date();
  await db.insert(verifications).values({
    id,
    workspaceId,
    mode,
    status: opts.status ?? 'review',
    flow: 'age',
    checkMethod: 'estimation',
    externalId: opts.externalId ?? null,
    captureTokenHash: captureTokenHash(randomToken()),
    attemptsUsed: 1,
    submittedAt: at,
    statusChangedAt: at,
    result:
      mode === 'live'
        ? { decision: 'refer', threshold: 18, estimated_age: 19, age_range: { min: 9, max: 29 }, confidence: 0.57 }
        : null,
  });
  const mediaId = newId('med');
  const bytes = opts.selfie ?? Buffer.from('not really a jpeg, but bytes all the same');
  await db.insert(media).values({
    id: mediaId,
    verificationId: id,
    type: 'selfie',
    contentType: 'image/jpeg',
    byteSize: bytes.length,
    width: 640,
    height: 480,
    analysis: { checks: { face_count: { value: 1, threshold: 1, passed: true } } },
  });
  await mediaStore.put(db, mediaId, bytes);
  return { id, mediaId };
}

export async function statusOf(id: string, db: Db = getDb()) {
  const [v] = await db
    .select({ status: verifications.status, reason: verifications.reason })
    .from(verifications)
    .where(eq(verifications.id, id));
  return v;
}

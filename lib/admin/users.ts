import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { adminUsers } from '@/db/schema';
import type { DbOrTx } from '@/db/client';
import { DomainError, parseOrThrow } from '../errors';
import { hashPassword, verifyPassword } from '../crypto/hash';
import { newId } from '../ids';
import { audit } from '../audit';

const adminInput = z.object({
  email: z.email().transform((e) => e.toLowerCase()),
  password: z.string().min(12, 'At least 12 characters.').max(200),
});

export async function createAdmin(db: DbOrTx, input: { email: string; password: string }) {
  const v = parseOrThrow(adminInput, input);
  const id = newId('adm');
  const rows = await db
    .insert(adminUsers)
    .values({ id, email: v.email, passwordHash: await hashPassword(v.password) })
    .onConflictDoNothing()
    .returning();
  if (rows.length === 0) throw new DomainError('VALIDATION_ERROR', 'An admin with this email exists.', { fields: { email: ['Already exists.'] } });
  await audit(db, { actor: 'operator', action: 'admin.created', data: { id, email: v.email } });
  return { id, email: v.email, created_at: rows[0].createdAt.toISOString() };
}

/** For the admin sign-in: the admin when the password matches, otherwise null (same time either way). */
export async function checkAdminPassword(db: DbOrTx, email: string, password: string) {
  const [row] = await db.select().from(adminUsers).where(eq(adminUsers.email, email.toLowerCase()));
  const ok = await verifyPassword(password, row?.passwordHash ?? DUMMY_HASH);
  return row && ok ? { id: row.id, email: row.email } : null;
}

const DUMMY_HASH = 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';

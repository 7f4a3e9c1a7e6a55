/**
 * The signed-in admin of the current request, for admin pages, server actions and route handlers
 * (Next.js glue over sessions.ts). A page calls requireActor(): a signed-out visitor goes to sign-in (and
 * back afterwards), a session still owing its second factor to the code step, one that must set up a
 * second factor to the account page. Cached per request, so the layout and the page read the session once.
 */
import { cache } from 'react';
import { headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { getDb } from '@/lib/db/client';
import type { Actor } from '@/lib/domain/admin/access';
import { safeNext } from '@/lib/domain/admin/auth/throttle';
import { loadSession, type LoadedSession } from '@/lib/domain/admin/auth/sessions';
import { auth } from './nextauth';

export const currentSession = cache(async (): Promise<LoadedSession | null> => {
  const s = await auth();
  return s?.sid ? loadSession(getDb(), s.sid, new Date()) : null;
});

export { safeNext };

export async function requireSession(opts: { allowEnrol?: boolean } = {}): Promise<LoadedSession> {
  const s = await currentSession();
  if (!s) {
    const path = (await headers()).get('x-admin-path');
    redirect(`/admin/sign-in?next=${encodeURIComponent(safeNext(path))}`);
  }
  if (s.stage === 'second_factor') redirect('/admin/sign-in/code');
  if (s.stage === 'enrol' && !opts.allowEnrol) redirect('/admin/account');
  return s;
}

export async function requireActor(opts: { allowEnrol?: boolean } = {}): Promise<Actor> {
  return (await requireSession(opts)).actor;
}

/** /admin/sign-in/code – the second factor, after the password (or single sign-on). */
import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { currentSession, safeNext } from '@/app/admin/_auth/current';
import { CodeForm } from '@/components/admin/SignInForms';
import { SignInFrame } from '@/components/admin/SignInFrame';
import { signInWithCode, signOutAction } from '../../auth-actions';
import { cn, linkVariants } from '@/components/admin/ui';

export const metadata: Metadata = { title: 'Two-factor code' };

export default async function CodePage(props: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const q = await props.searchParams;
  const next = safeNext(q.next);
  const s = await currentSession();
  if (!s) redirect(`/admin/sign-in?next=${encodeURIComponent(next)}`);
  if (s.stage !== 'second_factor') redirect(next);
  return (
    <SignInFrame title="Enter your code">
      <p className="mb-4 text-sm text-neutral-800">Signed in as {s.actor.email}. One more step.</p>
      <CodeForm action={signInWithCode} next={next} />
      <form action={signOutAction} className="mt-4">
        <button type="submit" className={cn(linkVariants(), 'text-sm')}>
          Cancel and sign out
        </button>
      </form>
    </SignInFrame>
  );
}

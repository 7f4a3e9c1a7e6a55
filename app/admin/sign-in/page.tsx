/** /admin/sign-in – email and password, or single sign-on when configured. */
import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { env } from '@/lib/core/env';
import { currentSession, safeNext } from '@/app/admin/_auth/current';
import { oidcEnabled } from '@/app/admin/_auth/nextauth';
import { PasswordForm } from '@/components/admin/SignInForms';
import { SignInFrame } from '@/components/admin/SignInFrame';
import { Button, layout, Notice } from '@/components/admin/ui';
import { signInWithPassword, signInWithSso } from '../auth-actions';

export const metadata: Metadata = { title: 'Sign in' };

/** Auth.js's error codes (single sign-on) in words. */
const SSO_ERRORS: Record<string, string> = {
  AccessDenied: 'That single sign-on account has no access here. Ask an operator to add your email as an admin.',
  Configuration: 'Single sign-on is not working right now. Sign in with your password, or ask an operator.',
};

export default async function SignInPage(props: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const q = await props.searchParams;
  const next = safeNext(q.next);
  const s = await currentSession();
  if (s?.stage === 'full') redirect(next);
  if (s?.stage === 'second_factor') redirect(`/admin/sign-in/code?next=${encodeURIComponent(next)}`);
  const error = typeof q.error === 'string' ? (SSO_ERRORS[q.error] ?? 'Signing in did not complete. Try again.') : null;
  return (
    <SignInFrame title="Sign in">
      {error ? <Notice tone="error">{error}</Notice> : null}
      <PasswordForm action={signInWithPassword} next={next} />
      {oidcEnabled() ? (
        <form action={signInWithSso} className={layout.separated}>
          <input type="hidden" name="next" value={next} />
          <Button type="submit" variant="secondary" className="w-full">
            Sign in with {env().AUTH_OIDC_NAME}
          </Button>
        </form>
      ) : null}
    </SignInFrame>
  );
}

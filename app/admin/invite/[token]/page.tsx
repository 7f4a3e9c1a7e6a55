/** /admin/invite/{token} – an invitation to a workspace, opened from the link an owner sent (works once, until it expires). */
import type { Metadata } from 'next';
import { getDb } from '@/lib/db/client';
import { openInvite } from '@/lib/domain/admin/members';
import { AcceptInviteForm } from '@/components/admin/InviteForm';
import { SignInFrame } from '@/components/admin/SignInFrame';
import { TextLink } from '@/components/admin/ui';
import { acceptInviteAction } from '../../auth-actions';

export const metadata: Metadata = { title: 'Invitation' };

export default async function InvitePage(props: { params: Promise<{ token: string }> }) {
  const { token } = await props.params;
  const inv = await openInvite(getDb(), token);
  if (!inv) {
    return (
      <SignInFrame title="Invitation">
        <p className="text-sm text-neutral-900">
          This invitation link has been used, withdrawn or has expired. Ask the person who invited you for a new one.
        </p>
        <p className="mt-4 text-sm">
          <TextLink href="/admin/sign-in">Sign in</TextLink>
        </p>
      </SignInFrame>
    );
  }
  return (
    <SignInFrame title={`Join ${inv.workspaceName || 'a workspace'}`}>
      <p className="mb-4 text-sm text-neutral-900">
        You are invited as <strong>{inv.role}</strong>.{' '}
        {inv.existingAccount
          ? 'This email has an account: give its password to join.'
          : 'Choose a password to create your account.'}
      </p>
      <AcceptInviteForm action={acceptInviteAction} token={token} email={inv.email} existing={inv.existingAccount} />
    </SignInFrame>
  );
}

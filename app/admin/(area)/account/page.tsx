/** /admin/account – the admin's own security: second factor, password, sessions, sign out everywhere. */
import type { Metadata } from 'next';
import QRCode from 'qrcode';
import { getDb } from '@/lib/db/client';
import { requireSession } from '@/app/admin/_auth/current';
import { listOpenSessions } from '@/lib/domain/admin/auth/sessions';
import { pendingTotp, recoveryCodesLeft } from '@/lib/domain/admin/auth/two-factor';
import { accountSecurity } from '@/lib/domain/admin/users';
import { dateTime } from '@/components/admin/format';
import { Button, Card, Facts, Notice, PageHeader } from '@/components/admin/ui';
import { ConfirmEnrolForm, DisableForm, PasswordForm, RegenerateForm } from '@/components/admin/AccountForms';
import {
  beginEnrolAction,
  changePasswordAction,
  confirmEnrolAction,
  disableTotpAction,
  regenerateCodesAction,
  signOutEverywhereAction,
} from '../../account-actions';

export const metadata: Metadata = { title: 'Account' };

export default async function AccountPage() {
  const s = await requireSession({ allowEnrol: true });
  const db = getDb();
  const u = await accountSecurity(db, s.actor.userId);
  const pending = s.totpEnabled ? null : await pendingTotp(db, s.actor);
  const qr = pending ? await QRCode.toString(pending.uri, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' }) : null;
  const [left, sessions] = await Promise.all([
    recoveryCodesLeft(db, s.actor.userId),
    listOpenSessions(db, s.actor.userId, new Date()),
  ]);
  const roles = s.actor.isOperator
    ? 'Operator: every workspace'
    : s.actor.workspaces.map((w) => `${w.workspaceName} (${w.role})`).join(', ') ||
      'No workspace yet: ask an operator to add you.';
  return (
    <>
      <PageHeader title="Account" subtitle={s.actor.email} />
      {s.stage === 'enrol' ? (
        <Notice tone="warning">Your account needs two-factor authentication. Set it up to continue.</Notice>
      ) : null}
      <div className="grid grid-cols-1 gap-4">
        <Card title="Access" id="access">
          <Facts
            items={[
              ['Email', s.actor.email],
              ['Role', roles],
              ['Signed in with', s.method === 'oidc' ? 'single sign-on' : 'password'],
            ]}
          />
        </Card>

        <Card title="Two-factor authentication" id="two-factor">
          {s.totpEnabled ? (
            <div className="space-y-4">
              <p className="text-sm text-neutral-900">
                On since {dateTime(u.totpEnabledAt)}. {left} recovery code{left === 1 ? '' : 's'} left.
                {s.totpRequired ? ' Required for your account.' : ''}
              </p>
              <RegenerateForm action={regenerateCodesAction} />
              {!s.totpRequired ? <DisableForm action={disableTotpAction} /> : null}
            </div>
          ) : pending ? (
            <div className="grid grid-cols-1 gap-4 md:grid-cols-[auto_1fr]">
              {/* A QR code rendered on the server as SVG: no script, nothing fetched. */}
              <div
                className="h-48 w-48 rounded border border-neutral-200 bg-white p-1"
                role="img"
                aria-label="QR code to scan with an authenticator app"
                dangerouslySetInnerHTML={{ __html: qr ?? '' }}
              />
              <div className="space-y-3 text-sm text-neutral-900">
                <ol className="list-decimal space-y-1 pl-5">
                  <li>Scan the code with an authenticator app (1Password, Google Authenticator, Authy, …).</li>
                  <li>
                    Or type this key:{' '}
                    <code className="break-all rounded bg-neutral-100 px-1 font-mono" data-testid="totp-secret">
                      {pending.secret.replace(/(.{4})/g, '$1 ').trim()}
                    </code>
                  </li>
                  <li>Enter the 6-digit code the app shows.</li>
                </ol>
                <ConfirmEnrolForm action={confirmEnrolAction} />
              </div>
            </div>
          ) : (
            <div className="space-y-3">
              <p className="text-sm text-neutral-900">
                Off. With it on, signing in also asks for a code from an app on your phone.
              </p>
              <form action={beginEnrolAction}>
                <Button type="submit">Set up two-factor authentication</Button>
              </form>
            </div>
          )}
        </Card>

        {u.hasPassword && s.stage === 'full' ? (
          <Card title="Password" id="password">
            <PasswordForm action={changePasswordAction} />
          </Card>
        ) : null}

        <Card title="Where you are signed in" id="sessions">
          <ul className="mb-4 divide-y divide-neutral-200 text-sm">
            {sessions.map((x) => (
              <li key={x.id} className="py-2 text-neutral-900">
                {x.userAgent ?? 'Unknown browser'} · {x.ip ?? 'unknown address'} ·{' '}
                {x.method === 'oidc' ? 'single sign-on' : 'password'} · last active {dateTime(x.lastSeenAt)}
                {x.id === s.actor.sessionId ? <strong className="ml-1">(this browser)</strong> : null}
              </li>
            ))}
          </ul>
          <form action={signOutEverywhereAction}>
            <Button type="submit" variant="danger">
              Sign out everywhere
            </Button>
          </form>
        </Card>
      </div>
    </>
  );
}

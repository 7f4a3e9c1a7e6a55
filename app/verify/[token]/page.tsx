/**
 * The hosted capture page, opened by the verification's unguessable token. An unknown, expired or finished
 * link shows a clear page; otherwise the steps run in the browser (components/capture). Security headers:
 * proxy.ts.
 */
import type { Metadata } from 'next';
import { headers } from 'next/headers';
import QRCode from 'qrcode';
import { getDb } from '@/db/client';
import { verificationByToken } from '@/lib/capture/auth';
import { captureState } from '@/lib/capture/state';
import { captureUrl } from '@/lib/verifications/serialize';
import { CaptureFlow } from '@/components/capture/CaptureFlow';
import { MESSAGES, pickLang } from '@/components/capture/messages';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Verification', robots: { index: false, follow: false }, referrer: 'no-referrer' };

export default async function VerifyPage(props: { params: Promise<{ token: string }> }) {
  const { token } = await props.params;
  const h = await headers();
  const lang = pickLang(h.get('accept-language'));
  const m = MESSAGES[lang];
  const found = await verificationByToken(getDb(), token);
  if (!found) return <LinkProblem lang={lang} title={m.unknown} text={m.unknownText} />;
  if (found.v.status === 'expired' || found.v.status === 'abandoned') return <LinkProblem lang={lang} title={m.expired} text={m.expiredText} />;
  const state = await captureState(getDb(), found.v, found.workspace.name);
  const finished = ['approved', 'declined', 'review', 'submitted'].includes(state.status);
  // Desktop → phone hand-off: the same link as a QR code (rendered here, no script needed).
  const qrSvg = finished ? null : await QRCode.toString(captureUrl(token), { type: 'svg', margin: 1, errorCorrectionLevel: 'M' });
  return <CaptureFlow token={token} lang={lang} initial={state} qrSvg={qrSvg} />;
}

function LinkProblem(props: { lang: string; title: string; text: string }) {
  return (
    <main lang={props.lang} className="mx-auto max-w-xl space-y-3 px-4 py-10">
      <h1 className="text-2xl font-bold">{props.title}</h1>
      <p>{props.text}</p>
    </main>
  );
}

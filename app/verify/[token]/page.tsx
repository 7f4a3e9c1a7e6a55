/**
 * The hosted capture page, opened by the verification's unguessable token. An unknown, expired or finished
 * link shows a clear page; otherwise the steps run in the browser (components/capture). In the language chosen for
 * this request (i18n/capture.ts, docs/capture-page.md): its catalogue alone is sent to the browser. Security
 * headers: proxy.ts.
 */
import type { Metadata } from 'next';
import QRCode from 'qrcode';
import { NextIntlClientProvider } from 'next-intl';
import { getLocale, getMessages, getTranslations } from 'next-intl/server';
import { getDb } from '@/lib/db/client';
import { captureState } from '@/lib/domain/capture/state';
import { captureUrl } from '@/lib/domain/verifications/serialize';
import { EMBED_PARAM, embedTarget } from '@/lib/domain/capture/embed';
import { LANG_PARAM } from '@/lib/core/i18n/locales';
import { CaptureFlow } from '@/components/capture/CaptureFlow';
import { captureVerification } from '@/i18n/capture';

export const dynamic = 'force-dynamic';

export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations();
  return { title: t('page.metaTitle'), robots: { index: false, follow: false }, referrer: 'no-referrer' };
}

export default async function VerifyPage(props: {
  params: Promise<{ token: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { token } = await props.params;
  const t = await getTranslations();
  const found = await captureVerification(token);
  if (!found) return <LinkProblem title={t('link.unknown')} text={t('link.unknownText')} />;
  if (found.v.status === 'expired' || found.v.status === 'abandoned')
    return <LinkProblem title={t('link.expired')} text={t('link.expiredText')} />;
  const locale = await getLocale();
  const state = await captureState(getDb(), found.v, found.workspace.name);
  const finished = ['approved', 'declined', 'review', 'submitted'].includes(state.status);
  // Desktop → phone hand-off: the same link as a QR code (rendered here, no script needed), in this language.
  const handOff = `${captureUrl(token)}?${LANG_PARAM}=${encodeURIComponent(locale)}`;
  const qrSvg = finished ? null : await QRCode.toString(handOff, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' });
  return (
    <NextIntlClientProvider locale={locale} messages={await getMessages()} timeZone="UTC">
      <CaptureFlow
        token={token}
        initial={state}
        qrSvg={qrSvg}
        embed={embedTarget(found, (await props.searchParams)[EMBED_PARAM])}
      />
    </NextIntlClientProvider>
  );
}

function LinkProblem(props: { title: string; text: string }) {
  return (
    <main className="mx-auto max-w-xl space-y-3 px-4 py-10">
      <h1 className="text-2xl font-bold">{props.title}</h1>
      <p>{props.text}</p>
    </main>
  );
}

/**
 * The capture page's language for one request (docs/capture-page.md "How the language is chosen"). The proxy
 * (proxy.ts) passes the capture page's path and query in a request header, so that the root layout, which renders
 * `<html lang dir>`, and the page itself reach the same answer through next-intl's request configuration
 * (i18n/request.ts); every other page (the admin area, the API reference) is English.
 */
import { cache } from 'react';
import { cookies, headers } from 'next/headers';
import { getDb } from '@/lib/db/client';
import { verificationByToken } from '@/lib/domain/capture/auth';
import { chooseLocale, type LocaleSource } from '@/lib/core/i18n/negotiate';
import { DEFAULT_LOCALE, LANG_COOKIE, LANG_PARAM, type Locale } from '@/lib/core/i18n/locales';
import { CAPTURE_PATH_HEADER } from './capture-header';

/** The verification a capture link opens, read once per request (the layout and the page both need it). */
export const captureVerification = cache((token: string) => verificationByToken(getDb(), token));

export const captureRequestLocale = cache(async (): Promise<{ locale: Locale; source: LocaleSource }> => {
  const h = await headers();
  const m = /^\/verify\/([^/?#]+)\/?(?:\?(.*))?$/.exec(h.get(CAPTURE_PATH_HEADER) ?? '');
  if (!m) return { locale: DEFAULT_LOCALE, source: 'default' };
  const [, token, query] = m;
  const found = await captureVerification(token);
  return chooseLocale({
    picked: (await cookies()).get(LANG_COOKIE)?.value,
    query: new URLSearchParams(query ?? '').get(LANG_PARAM),
    verification: found?.v.locale,
    acceptLanguage: h.get('accept-language'),
  });
});

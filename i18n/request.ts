/**
 * next-intl's request configuration (its plugin in next.config.ts points here): the language of this request and
 * its catalogue, messages/<locale>.json, precompiled at build time and loaded for that one language only.
 */
import { getRequestConfig } from 'next-intl/server';
import { isLocale } from '@/lib/core/i18n/locales';
import { captureRequestLocale } from './capture';

export default getRequestConfig(async ({ locale: asked }) => {
  const locale = isLocale(asked) ? asked : (await captureRequestLocale()).locale;
  return {
    locale,
    // Nothing on the page shows a date or a time; a fixed zone keeps server and browser rendering the same.
    timeZone: 'UTC',
    messages: (await import(`../messages/${locale}.json`)).default,
  };
});

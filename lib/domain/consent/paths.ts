/**
 * Where each consent text is served (docs/api.md "Consent"): English at `/consent/{id}.txt` (the interface's URL),
 * every language, English too, at `/consent/{id}/{locale}.txt`. Stable: a version's texts never change. Apart from
 * lib/domain/consent so that the capture page's own script can build a path without the database code.
 */
import { DEFAULT_LOCALE, type Locale } from '../../core/i18n/locales';

export const consentTextPath = (id: number, locale: Locale = DEFAULT_LOCALE) =>
  locale === DEFAULT_LOCALE ? `/consent/${id}.txt` : `/consent/${id}/${locale}.txt`;

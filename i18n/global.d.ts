/** next-intl's types: the page's languages and the English catalogue's keys (an unknown key fails the typecheck). */
import type messages from '../messages/en.json';
import type { Locale } from '../lib/core/i18n/locales';

declare module 'next-intl' {
  interface AppConfig {
    Locale: Locale;
    Messages: typeof messages;
  }
}

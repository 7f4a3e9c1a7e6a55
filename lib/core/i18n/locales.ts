/**
 * The languages of the hosted capture page (docs/capture-page.md "Languages"): one message catalogue each in
 * messages/<locale>.json, and the consent text of each consent version in each. Plain data, so the page's own
 * script (the language picker) can read it without the negotiation code (lib/core/i18n/negotiate.ts).
 */
export const LOCALES = [
  'en',
  'es',
  'pt-BR',
  'fr',
  'de',
  'it',
  'nl',
  'pl',
  'tr',
  'ru',
  'uk',
  'ar',
  'he',
  'hi',
  'id',
  'ja',
] as const;
export type Locale = (typeof LOCALES)[number];

/** The language of the page when nothing else decides, of GET /v1/consent without `lang`, and of every fallback. */
export const DEFAULT_LOCALE: Locale = 'en';

/** Each language's name in that language: how a person finds their own in the picker. */
export const LOCALE_NAMES: Record<Locale, string> = {
  en: 'English',
  es: 'Español',
  'pt-BR': 'Português (Brasil)',
  fr: 'Français',
  de: 'Deutsch',
  it: 'Italiano',
  nl: 'Nederlands',
  pl: 'Polski',
  tr: 'Türkçe',
  ru: 'Русский',
  uk: 'Українська',
  ar: 'العربية',
  he: 'עברית',
  hi: 'हिन्दी',
  id: 'Bahasa Indonesia',
  ja: '日本語',
};

/** English names, for the admin area and the operator CLI. */
export const LOCALE_ENGLISH_NAMES: Record<Locale, string> = {
  en: 'English',
  es: 'Spanish',
  'pt-BR': 'Portuguese (Brazil)',
  fr: 'French',
  de: 'German',
  it: 'Italian',
  nl: 'Dutch',
  pl: 'Polish',
  tr: 'Turkish',
  ru: 'Russian',
  uk: 'Ukrainian',
  ar: 'Arabic',
  he: 'Hebrew',
  hi: 'Hindi',
  id: 'Indonesian',
  ja: 'Japanese',
};

const RTL: ReadonlySet<Locale> = new Set<Locale>(['ar', 'he']);

/** The writing direction of a language, for `<html dir>`. */
export const dirOf = (locale: Locale): 'rtl' | 'ltr' => (RTL.has(locale) ? 'rtl' : 'ltr');

export const isLocale = (s: unknown): s is Locale =>
  typeof s === 'string' && (LOCALES as readonly string[]).includes(s);

/** The capture link's parameter naming a language: `/verify/{token}?lang=fr`. */
export const LANG_PARAM = 'lang';
/** The person's choice in the page's language picker, kept for that one link (its path) in this browser. */
export const LANG_COOKIE = 'ov_lang';

/**
 * Choosing one of the capture page's languages (docs/capture-page.md "How the language is chosen"): BCP 47 tags
 * checked and canonicalised by the platform's Intl (`iw` → `he`, `EN-gb` → `en-GB`), matched by RFC 4647 Lookup
 * (@formatjs/intl-localematcher: `fr-CA` → `fr`, `de-CH-1996` → `de`), Accept-Language read by `negotiator`.
 * A language is either one of ours or passed over: Lookup never swaps one language for a neighbour.
 */
import { match } from '@formatjs/intl-localematcher';
import Negotiator from 'negotiator';
import { DEFAULT_LOCALE, isLocale, LOCALES, type Locale } from './locales';

/** Portuguese without a region (or of another region) reads Brazilian Portuguese rather than English. */
const ALIASES: Record<string, Locale> = { pt: 'pt-BR' };
const AVAILABLE = [...LOCALES, ...Object.keys(ALIASES)];
/** No preference matched (not a locale: `match` needs a fallback of its own). */
const NONE = 'zxx';
/** RFC 5646 asks implementations to take at least 35 characters; anything much longer is not a language tag. */
export const LOCALE_TAG_MAX = 100;

/** The canonical form of a well-formed BCP 47 tag, or null when it is malformed. */
export function canonicalTag(tag: string): string | null {
  if (tag.length === 0 || tag.length > LOCALE_TAG_MAX) return null;
  try {
    const [canonical] = Intl.getCanonicalLocales(tag);
    return canonical ?? null;
  } catch {
    return null;
  }
}

/** The first of the preferred tags (most preferred first) that is one of ours; malformed ones are skipped. */
export function negotiate(preferred: readonly string[]): Locale | null {
  const tags = preferred.map(canonicalTag).filter((t): t is string => t !== null);
  if (tags.length === 0) return null;
  const found = match(tags, AVAILABLE, NONE, { algorithm: 'lookup' });
  if (found === NONE) return null;
  return ALIASES[found] ?? (isLocale(found) ? found : null);
}

/** The browser's languages, by their q-values (`*` and malformed entries ignored). */
export function fromAcceptLanguage(header: string | null | undefined): Locale | null {
  if (!header) return null;
  const tags = new Negotiator({ headers: { 'accept-language': header } }).languages().filter((t) => t !== '*');
  return negotiate(tags);
}

export type LocaleSource = 'picker' | 'query' | 'verification' | 'accept-language' | 'default';

/**
 * The capture page's language, in this order: the person's choice in the page's picker, `?lang=` on the link, the
 * verification's `locale` (set by the integrator), the browser's Accept-Language, English. An unknown or malformed
 * choice at any step is passed over, never an error.
 */
export function chooseLocale(input: {
  picked?: string | null;
  query?: string | null;
  verification?: string | null;
  acceptLanguage?: string | null;
}): { locale: Locale; source: LocaleSource } {
  if (isLocale(input.picked)) return { locale: input.picked, source: 'picker' };
  const fromQuery = input.query ? negotiate([input.query]) : null;
  if (fromQuery) return { locale: fromQuery, source: 'query' };
  if (isLocale(input.verification)) return { locale: input.verification, source: 'verification' };
  const fromHeader = fromAcceptLanguage(input.acceptLanguage);
  if (fromHeader) return { locale: fromHeader, source: 'accept-language' };
  return { locale: DEFAULT_LOCALE, source: 'default' };
}

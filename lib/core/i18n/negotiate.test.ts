/** How the capture page's language is chosen (docs/capture-page.md "How the language is chosen"). */
import { describe, expect, it } from 'vitest';
import { chooseLocale, fromAcceptLanguage, negotiate } from './negotiate';

describe('capture page language', () => {
  it("the order: the picker, ?lang=, the verification's locale, Accept-Language, English", () => {
    const all = { picked: 'uk', query: 'ja', verification: 'fr', acceptLanguage: 'de' };
    expect(chooseLocale(all)).toEqual({ locale: 'uk', source: 'picker' });
    expect(chooseLocale({ ...all, picked: null })).toEqual({ locale: 'ja', source: 'query' });
    expect(chooseLocale({ ...all, picked: null, query: null })).toEqual({ locale: 'fr', source: 'verification' });
    expect(chooseLocale({ acceptLanguage: 'de' })).toEqual({ locale: 'de', source: 'accept-language' });
    expect(chooseLocale({})).toEqual({ locale: 'en', source: 'default' });
  });

  it('an unknown or malformed value at any step is passed over, never an error', () => {
    const rest = { verification: 'fr', acceptLanguage: 'de' };
    for (const bad of ['zz', 'xx-YY', '<script>', '', 'fr_FR', 'a'.repeat(500), 'en--US', '*']) {
      expect([bad, chooseLocale({ picked: bad, query: bad, ...rest }).locale]).toEqual([bad, 'fr']);
    }
    expect(chooseLocale({ query: 'zh-Hant', acceptLanguage: 'zh, ;;q=oops,, pl;q=0.5' })).toEqual({
      locale: 'pl',
      source: 'accept-language',
    });
    expect(chooseLocale({ acceptLanguage: ';;q=oops,,' }).locale).toBe('en');
  });

  it('a regional or legacy tag reaches its language (RFC 4647 lookup); never a neighbouring language', () => {
    expect(
      ['fr-CA', 'pt', 'pt-PT', 'PT-br', 'iw', 'de-CH-1996', 'ar-EG', 'ja-JP', 'zh', 'ca', 'nb'].map((t) =>
        negotiate([t]),
      ),
    ).toEqual(['fr', 'pt-BR', 'pt-BR', 'pt-BR', 'he', 'de', 'ar', 'ja', null, null, null]);
  });

  it('Accept-Language is read by its q-values', () => {
    expect(fromAcceptLanguage('en;q=0.1, ja;q=0.9, *')).toBe('ja');
    expect(fromAcceptLanguage('xx, hi-IN;q=0.8, en;q=0.5')).toBe('hi');
    expect(fromAcceptLanguage('en;q=0, tr')).toBe('tr');
  });
});

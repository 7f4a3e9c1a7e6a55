'use client';
/**
 * The page's language picker (docs/capture-page.md "How the language is chosen"): the person's choice comes before
 * anything else. It is kept for this link in a cookie, and the page is rendered again by the server in that
 * language (router.refresh: `<html lang dir>` and every text follow) while the steps keep their state (consent
 * given, photos taken, the camera running).
 */
import { useTransition } from 'react';
import { useRouter } from 'next/navigation';
import { useLocale, useTranslations } from 'next-intl';
import { LANG_COOKIE, LOCALE_NAMES, LOCALES } from '@/lib/core/i18n/locales';

export function LanguagePicker(props: { token: string }) {
  const t = useTranslations();
  const locale = useLocale();
  const router = useRouter();
  const [pending, startTransition] = useTransition();

  const choose = (next: string) => {
    // Over https the cookie is partitioned (CHIPS), so it also works with the page inside another site's frame
    // (docs/sdks.md "Embedding the flow"): kept for that site only; a language carries no authority.
    const site = location.protocol === 'https:' ? 'samesite=none; secure; partitioned' : 'samesite=lax';
    document.cookie = `${LANG_COOKIE}=${encodeURIComponent(next)}; path=/verify/${props.token}; max-age=31536000; ${site}`;
    startTransition(() => router.refresh());
  };

  return (
    <div className="flex items-center gap-2 text-sm">
      <label htmlFor="capture-language" className="flex items-center gap-1 text-neutral-700">
        <svg aria-hidden="true" viewBox="0 0 20 20" className="size-4 fill-none stroke-current stroke-[1.5]">
          <circle cx="10" cy="10" r="8" />
          <path d="M2 10h16M10 2c2.5 2.5 2.5 13.5 0 16M10 2c-2.5 2.5-2.5 13.5 0 16" />
        </svg>
        {t('language.label')}
      </label>
      <select
        id="capture-language"
        data-testid="language-picker"
        value={locale}
        aria-busy={pending}
        onChange={(e) => choose(e.target.value)}
        className="min-h-11 max-w-44 rounded-md border border-neutral-400 bg-white px-2 text-neutral-900 focus-visible:outline-3 focus-visible:outline-blue-900"
      >
        {LOCALES.map((l) => (
          <option key={l} value={l} lang={l}>
            {LOCALE_NAMES[l]}
          </option>
        ))}
      </select>
    </div>
  );
}

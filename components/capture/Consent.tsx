'use client';
/**
 * The consent step: the full text in the page's language (or, where the version has none in it, the English one,
 * saying so), fetched from its URL and shown unchanged, as text, scrollable; acceptance sends the version id and
 * the SHA-256 computed here over exactly the bytes shown, which is how the server knows which language was read.
 */
import { useCallback, useEffect, useState } from 'react';
import { useLocale, useTranslations } from 'next-intl';
import { advise, call, sha256Hex, type CaptureState } from './api';
import { consentTextPath } from '@/lib/domain/consent/paths';
import { DEFAULT_LOCALE, dirOf } from '@/lib/core/i18n/locales';

type Loaded = { path: string; text: string; sha: string } | { path: string; failed: true } | null;

export function Consent(props: {
  token: string;
  version: NonNullable<CaptureState['consent']['version']>;
  onAccepted: (s: CaptureState) => void;
}) {
  const { token, version, onAccepted } = props;
  const t = useTranslations();
  const pageLocale = useLocale();
  const textLocale = version.locales.includes(pageLocale) ? pageLocale : DEFAULT_LOCALE;
  const path = consentTextPath(version.id, textLocale);
  const [loaded, setLoaded] = useState<Loaded>(null);
  /** an error's code ('mismatch', or the server's): shown in whatever language the page is in */
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const load = useCallback(async () => {
    setLoaded(null);
    try {
      const res = await fetch(path, { cache: 'no-store' });
      if (!res.ok) throw new Error(String(res.status));
      const bytes = await res.arrayBuffer();
      setLoaded({ path, text: new TextDecoder('utf-8').decode(bytes), sha: await sha256Hex(bytes) });
    } catch {
      setLoaded({ path, failed: true });
    }
  }, [path]);

  useEffect(() => {
    // Fetching the text is this step's reason to exist: on mount, and again in a newly chosen language.
    // eslint-disable-next-line react-hooks/set-state-in-effect
    void load();
  }, [load]);

  // A text of another language than the one now chosen is not the one to accept.
  const current = loaded?.path === path ? loaded : null;
  const shown = current && 'text' in current ? current : null;

  const accept = async () => {
    if (!shown) return;
    setBusy(true);
    setError(null);
    const r = await call<CaptureState>(token, '/consent', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ consent_version_id: version.id, text_sha256: shown.sha }),
    });
    setBusy(false);
    if (r.ok) return onAccepted(r.data);
    if (r.code === 'CONSENT_SHA256_MISMATCH' || r.code === 'CONSENT_VERSION_INACTIVE') {
      setError('mismatch');
      void load();
      return;
    }
    setError(r.code);
  };

  return (
    <div className="space-y-4">
      <p>{t('consent.intro')}</p>
      <p className="text-sm text-neutral-600">{t('consent.version', { version: version.version })}</p>
      {textLocale !== pageLocale && (
        <p className="rounded-md bg-amber-50 p-3 text-sm text-amber-950" data-testid="consent-english-only">
          {t('consent.englishOnly')}
        </p>
      )}
      {!current && <p role="status">{t('consent.loading')}</p>}
      {current && 'failed' in current && (
        <div role="alert" className="space-y-2">
          <p>{t('consent.loadFailed')}</p>
          <button type="button" className="btn-secondary" onClick={() => void load()}>
            {t('retry')}
          </button>
        </div>
      )}
      {shown && (
        <pre
          tabIndex={0}
          lang={textLocale}
          dir={dirOf(textLocale)}
          aria-label={t('consent.textLabel')}
          data-testid="consent-text"
          className="max-h-72 overflow-y-auto whitespace-pre-wrap break-words rounded-lg border border-neutral-300 bg-neutral-50 p-3 font-sans text-sm leading-relaxed"
        >
          {shown.text}
        </pre>
      )}
      {error && (
        <p role="alert" className="text-red-800">
          {error === 'mismatch' ? t('consent.mismatch') : advise(t, { code: error })}
        </p>
      )}
      <button type="button" className="btn-primary w-full" disabled={!shown || busy} onClick={accept}>
        {t('consent.accept')}
      </button>
    </div>
  );
}

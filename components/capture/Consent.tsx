'use client';
/**
 * The consent step: the full text fetched from the version's URL and shown unchanged, as text, scrollable;
 * acceptance sends the version id and the SHA-256 computed here over exactly the bytes shown.
 */
import { useCallback, useEffect, useState } from 'react';
import { advise, call, sha256Hex, type CaptureState } from './api';
import type { Messages } from './messages';

type Loaded = { text: string; sha: string } | 'loading' | 'failed';

export function Consent(props: { token: string; m: Messages; version: NonNullable<CaptureState['consent']['version']>; onAccepted: (s: CaptureState) => void }) {
  const { token, m, version, onAccepted } = props;
  const [loaded, setLoaded] = useState<Loaded>('loading');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const load = useCallback(async () => {
    try {
      const res = await fetch(version.text_path, { cache: 'no-store' });
      if (!res.ok) throw new Error(String(res.status));
      const bytes = await res.arrayBuffer();
      setLoaded({ text: new TextDecoder('utf-8').decode(bytes), sha: await sha256Hex(bytes) });
    } catch {
      setLoaded('failed');
    }
  }, [version.text_path]);

  useEffect(() => {
    // Fetching the text is this step's reason to exist: start it on mount.
    // eslint-disable-next-line react-hooks/set-state-in-effect
    void load();
  }, [load]);

  const accept = async () => {
    if (typeof loaded !== 'object') return;
    setBusy(true);
    setError(null);
    const r = await call<CaptureState>(token, '/consent', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ consent_version_id: version.id, text_sha256: loaded.sha }),
    });
    setBusy(false);
    if (r.ok) return onAccepted(r.data);
    if (r.code === 'CONSENT_SHA256_MISMATCH' || r.code === 'CONSENT_VERSION_INACTIVE') {
      setError(m.consentMismatch);
      setLoaded('loading');
      void load();
      return;
    }
    setError(advise(m, r));
  };

  return (
    <div className="space-y-4">
      <p>{m.consentIntro}</p>
      <p className="text-sm text-neutral-600">{m.consentVersion(version.version)}</p>
      {loaded === 'loading' && <p role="status">{m.consentLoading}</p>}
      {loaded === 'failed' && (
        <div role="alert" className="space-y-2">
          <p>{m.consentLoadFailed}</p>
          <button type="button" className="btn-secondary" onClick={() => { setLoaded('loading'); void load(); }}>
            {m.retry}
          </button>
        </div>
      )}
      {typeof loaded === 'object' && (
        <pre
          tabIndex={0}
          aria-label={m.steps.consent}
          data-testid="consent-text"
          className="max-h-72 overflow-y-auto whitespace-pre-wrap break-words rounded-lg border border-neutral-300 bg-neutral-50 p-3 font-sans text-sm leading-relaxed"
        >
          {loaded.text}
        </pre>
      )}
      {error && <p role="alert" className="text-red-800">{error}</p>}
      <button type="button" className="btn-primary w-full" disabled={typeof loaded !== 'object' || busy} onClick={accept}>
        {m.consentAccept}
      </button>
    </div>
  );
}

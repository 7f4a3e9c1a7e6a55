'use client';
/**
 * "Use a digital ID" (docs/wallet.md "On the hosted capture page"): where the workspace offers it and the browser
 * has the W3C Digital Credentials API, the page asks the server for a request per protocol the browser allows, hands
 * them to `navigator.credentials.get`, and sends the wallet's answer back; the server verifies it and decides. A
 * browser without the API never shows the offer. Every way it can end has its own plain words, in the page's language
 * (messages/<locale>.json, `wallet.*`; docs/capture-page.md).
 */
import { useEffect, useState, useSyncExternalStore } from 'react';
import { useTranslations } from 'next-intl';
import { call, type CaptureState } from './api';
import type { WalletProblem as Problem } from './message-keys';

export const WALLET_PROTOCOLS = ['openid4vp-v1-unsigned', 'org-iso-mdoc'] as const;

type DigitalCredentialStatic = { userAgentAllowsProtocol?: (p: string) => boolean };
type WalletRequest = { id: string; protocol: string; data: Record<string, unknown> };

/** The protocols this browser can use here: none without the Digital Credentials API. */
export function supportedWalletProtocols(): string[] {
  if (typeof window === 'undefined') return [];
  const DC = (window as unknown as { DigitalCredential?: DigitalCredentialStatic }).DigitalCredential;
  if (typeof DC === 'undefined' || typeof navigator.credentials?.get !== 'function') return [];
  return WALLET_PROTOCOLS.filter((p) => {
    try {
      return typeof DC.userAgentAllowsProtocol === 'function' ? DC.userAgentAllowsProtocol(p) : true;
    } catch {
      return false;
    }
  });
}

const noSubscription = () => () => {};

/** What went wrong, in the page's words: the browser's exception, or the server's refusal reason. */
function problemOf(e: unknown): Problem {
  const name = (e as { name?: string } | null)?.name;
  if (name === 'NotAllowedError' || name === 'AbortError') return 'cancelled';
  if (name === 'NotFoundError') return 'noWallet';
  if (name === 'NotSupportedError' || name === 'SecurityError' || name === 'TypeError') return 'unsupported';
  return 'declined';
}

const REFUSALS: Record<string, Problem> = {
  untrusted_issuer: 'untrusted',
  claim_missing: 'notShared',
  expired: 'expired',
};

/**
 * `intro`: the offer's words where it stands in for something else (new photos after a resubmission request, or the
 * document after a step-up); by default, beside the selfie.
 */
export function WalletOffer(props: {
  token: string;
  state: CaptureState;
  intro?: 'stepUp' | 'insteadOfDocument';
  divider?: boolean;
  onDecided: (s: CaptureState) => void;
  /** told when the wallet is asked (true) and when it is done asking (false): the embedding site's `wallet` step */
  onActive?: (active: boolean) => void;
}) {
  const { token } = props;
  const t = useTranslations();
  // The server renders no offer (it cannot know the browser); the browser's own answer after hydration. A stable
  // string, as useSyncExternalStore compares snapshots.
  const protocolList = useSyncExternalStore(
    noSubscription,
    () => supportedWalletProtocols().join(' '),
    () => '',
  );
  const protocols = protocolList ? protocolList.split(' ') : [];
  const [phase, setPhase] = useState<'idle' | 'wallet' | 'checking'>('idle');
  const [problem, setProblem] = useState<Problem | null>(null);
  const { onActive } = props;
  useEffect(() => onActive?.(phase !== 'idle'), [phase, onActive]);

  if (!props.state.wallet?.offer || protocols.length === 0) return null;
  const age = props.state.wallet.age;

  const start = async () => {
    setProblem(null);
    setPhase('wallet');
    const requests: WalletRequest[] = [];
    for (const protocol of protocols) {
      const r = await call<WalletRequest>(token, '/wallet-requests', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ protocol }),
      });
      if (!r.ok) {
        setPhase('idle');
        return setProblem(r.code === 'network' ? 'network' : 'declined');
      }
      requests.push(r.data);
    }
    let credential: { protocol?: string; data?: unknown } | null;
    try {
      credential = (await navigator.credentials.get({
        digital: { requests: requests.map((r) => ({ protocol: r.protocol, data: r.data })) },
      } as CredentialRequestOptions)) as typeof credential;
    } catch (e) {
      setPhase('idle');
      return setProblem(problemOf(e));
    }
    const answered = requests.find((r) => r.protocol === credential?.protocol);
    if (!credential || !answered) {
      setPhase('idle');
      return setProblem('noWallet');
    }
    setPhase('checking');
    const r = await call<CaptureState>(token, '/wallet-responses', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ request_id: answered.id, protocol: credential.protocol, data: credential.data }),
    });
    setPhase('idle');
    if (r.ok) return props.onDecided(r.data);
    if (r.code === 'WALLET_RESPONSE_INVALID') return setProblem(REFUSALS[String(r.details?.reason)] ?? 'invalid');
    setProblem(r.code === 'network' ? 'network' : 'declined');
  };

  return (
    <>
      <section
        aria-labelledby="wallet-title"
        className="space-y-3 rounded-lg border border-blue-200 bg-blue-50 p-4"
        data-testid="wallet-offer"
      >
        <h3 id="wallet-title" className="font-semibold">
          {t('wallet.title')}
        </h3>
        <p className="text-sm text-neutral-800">
          {props.intro === 'stepUp'
            ? t('wallet.stepUp', { age })
            : props.intro === 'insteadOfDocument'
              ? t('wallet.insteadOfDocument', { age })
              : t('wallet.intro', { age })}
        </p>
        {problem && (
          <p
            role="alert"
            className="rounded-md bg-white p-3 text-sm text-red-900"
            data-testid="wallet-problem"
            data-problem={problem}
          >
            {t(`wallet.problems.${problem}`)}
          </p>
        )}
        <button type="button" className="btn-primary w-full" disabled={phase !== 'idle'} onClick={() => void start()}>
          {phase === 'wallet'
            ? t('wallet.waiting')
            : phase === 'checking'
              ? t('wallet.checking')
              : problem
                ? t('wallet.retry')
                : t('wallet.use')}
        </button>
        <p role="status" aria-live="polite" className="sr-only">
          {phase === 'wallet' ? t('wallet.waiting') : phase === 'checking' ? t('wallet.checking') : ''}
        </p>
      </section>
      {props.divider && (
        <p className="flex items-center gap-3 text-sm font-semibold text-neutral-700" aria-hidden="true">
          <span className="h-px flex-1 bg-neutral-300" />
          {t('wallet.orSelfie')}
          <span className="h-px flex-1 bg-neutral-300" />
        </p>
      )}
    </>
  );
}

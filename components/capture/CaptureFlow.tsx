'use client';
/**
 * The hosted capture page's steps: consent → selfie → document (type, front, back unless passport) →
 * review and submit → waiting → result. It resumes where the verification stands (a reload, another
 * device), follows the decision by polling, and offers a retry when a resubmission is requested. When an age
 * estimate could not decide and the workspace steps up to a document (`document_required`), it says so in plain
 * words and asks for the document, keeping the selfie already taken. Every word comes from the page's catalogue in
 * the chosen language (messages/<locale>.json, docs/capture-page.md); a language switch keeps every step's state.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslations } from 'next-intl';
import dynamic from 'next/dynamic';
import { advise, call, type CaptureState } from './api';
import { Consent } from './Consent';
import { LanguagePicker } from './LanguagePicker';
import { PhotoStep } from './PhotoStep';
import { DOCUMENT_TYPES, isReasonMessage, type DocumentType, type StepName, type Translate } from './message-keys';
import { WalletOffer } from './WalletOffer';
import { useEmbedEvents, type EmbedTarget } from './embed-events';

/** The head-turn challenge's code loads only where a workspace requires it. */
const HeadTurnChallenge = dynamic(() => import('./HeadTurnChallenge').then((mod) => mod.HeadTurnChallenge));

type Step = 'consent' | 'selfie' | 'stepUp' | 'docType' | 'front' | 'back' | 'review' | 'waiting' | 'result';
/** The photos taken on this page, previewed on the review step. */
type Shot = Extract<Step, 'selfie' | 'front' | 'back'>;
const FINAL = ['approved', 'declined', 'review', 'resubmission_requested', 'expired', 'abandoned'];

/** Where a verification in this state continues. */
export function stepFor(s: CaptureState): Step {
  if (s.status === 'submitted') return 'waiting';
  if (s.status === 'resubmission_requested' && s.reason === 'document_required') return 'stepUp';
  if (FINAL.includes(s.status)) return 'result';
  if (!s.consent.accepted) return 'consent';
  // What submit would still miss (the server's own rule; uploads of earlier attempts count).
  if (s.missing.includes('selfie')) return 'selfie';
  if (s.missing.includes('document_front')) return 'docType';
  if (s.missing.includes('document_back')) return 'back';
  return 'review';
}

const progressKey = (step: Step): StepName =>
  step === 'stepUp' || step === 'docType' || step === 'front' || step === 'back'
    ? 'document'
    : step === 'waiting'
      ? 'result'
      : step;

/** A forward arrow that points the way the text reads (mirrored right to left). */
export function Forward() {
  return (
    <svg
      aria-hidden="true"
      viewBox="0 0 20 20"
      className="size-5 shrink-0 fill-none stroke-current stroke-2 rtl:-scale-x-100"
      data-testid="forward-icon"
    >
      <path d="M4 10h12M11 5l5 5-5 5" />
    </svg>
  );
}

export function CaptureFlow(props: {
  token: string;
  initial: CaptureState;
  qrSvg: string | null;
  embed?: EmbedTarget | null;
}) {
  const { token } = props;
  const t = useTranslations();
  const [state, setState] = useState(props.initial);
  const [step, setStep] = useState<Step>(() => stepFor(props.initial));
  const [docType, setDocType] = useState<DocumentType>(
    (props.initial.media.document_type as DocumentType) ?? 'id_card',
  );
  const [previews, setPreviews] = useState<Partial<Record<Shot, { url: string; mirrored: boolean }>>>({});
  /** a digital ID wallet is being asked (WalletOffer): the embedding site's `wallet` step */
  const [walletActive, setWalletActive] = useState(false);
  // The code of an error, not its words: a language switch shows it in the new language.
  const [errorCode, setErrorCode] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);
  const firstRender = useRef(true);
  // docs/sdks.md "Embedding the flow": the steps and the outcome, told to the embedding site (nothing personal).
  useEmbedEvents(props.embed, walletActive ? 'wallet' : step, state.status, errorCode);

  // Each new step moves focus to its heading, so keyboard and screen-reader users start there.
  useEffect(() => {
    if (firstRender.current) {
      firstRender.current = false;
      return;
    }
    heading.current?.focus();
  }, [step]);

  const refresh = useCallback(async () => {
    const r = await call<CaptureState>(token, '');
    if (r.ok) setState(r.data);
    return r.ok ? r.data : null;
  }, [token]);

  // Waiting: follow the decision (polling; the page cannot hold a webhook).
  useEffect(() => {
    if (step !== 'waiting') return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout>;
    const poll = async () => {
      const s = await refresh();
      if (stopped) return;
      if (s && s.status !== 'submitted') return setStep(stepFor(s));
      timer = setTimeout(poll, 1000);
    };
    timer = setTimeout(poll, 500);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [step, refresh]);

  const afterChallenge = useCallback(() => void refresh(), [refresh]);

  const afterUpload = (key: Shot) => async (url: string, mirrored: boolean) => {
    setPreviews((p) => ({ ...p, [key]: { url, mirrored } }));
    const s = await refresh();
    if (s) setStep(stepFor(s));
  };

  const submit = async () => {
    setBusy(true);
    setErrorCode(null);
    const r = await call<{ status: string }>(token, '/submit', { method: 'POST' });
    setBusy(false);
    if (!r.ok) return setErrorCode(r.code);
    await refresh();
    setStep(r.data.status === 'submitted' ? 'waiting' : 'result');
  };

  // A wallet's proof decides at once (docs/wallet.md): straight to the outcome.
  const walletDecided = (s: CaptureState) => {
    setState(s);
    setStep(s.status === 'submitted' ? 'waiting' : 'result');
  };

  const retry = () => {
    setPreviews({});
    setStep(state.reason === 'document_quality' ? 'docType' : 'selfie');
  };

  const steps: StepName[] = [
    'consent',
    'selfie',
    ...(state.needs_document ? (['document'] as const) : []),
    'review',
    'result',
  ];
  const current = steps.indexOf(progressKey(step));
  const qr = props.qrSvg ? (
    <div className="hidden rounded-lg border border-neutral-300 p-4 md:block">
      <h3 className="font-semibold">{t('otherDevice.title')}</h3>
      <p className="text-sm text-neutral-700">{t('otherDevice.hint')}</p>
      <div
        className="mx-auto mt-3 w-44"
        role="img"
        aria-label={t('otherDevice.title')}
        dangerouslySetInnerHTML={{ __html: props.qrSvg }}
      />
    </div>
  ) : null;

  const titles: Record<Step, string> = {
    consent: t('steps.consent'),
    selfie: t('selfie.title'),
    stepUp: t('stepUp.title'),
    docType: t('document.question'),
    front: docType === 'passport' ? t('document.passportFront') : t('document.front'),
    back: t('document.back'),
    review: t('review.title'),
    waiting: t('waiting'),
    result: resultTitle(t, state.status),
  };

  return (
    <div className="mx-auto flex min-h-screen w-full max-w-xl flex-col gap-5 px-4 py-6">
      <header className="space-y-1">
        <div className="flex flex-wrap items-center justify-between gap-x-4 gap-y-2">
          <p className="text-sm text-neutral-600">{t('page.requestedBy', { name: state.workspace_name })}</p>
          <LanguagePicker token={token} />
        </div>
        <h1 className="text-2xl font-bold">{state.flow === 'kyc' ? t('page.titleKyc') : t('page.title')}</h1>
        {state.mode === 'test' && <p className="rounded bg-neutral-100 p-2 text-sm">{t('page.testMode')}</p>}
      </header>

      <nav
        aria-label={t('progress', { current: current + 1, total: steps.length, name: t(`steps.${steps[current]}`) })}
      >
        <ol className="flex gap-1" data-testid="progress">
          {steps.map((s, i) => (
            <li key={s} aria-current={i === current ? 'step' : undefined} className="min-w-0 flex-1">
              <span
                className={`block h-1.5 rounded ${i <= current ? 'bg-blue-700' : 'bg-neutral-300'}`}
                aria-hidden="true"
              />
              <span
                className={`mt-1 block text-xs wrap-anywhere ${i === current ? 'font-semibold text-neutral-900' : 'text-neutral-600'}`}
              >
                {t(`steps.${s}`)}
              </span>
            </li>
          ))}
        </ol>
      </nav>

      <main className="flex-1 space-y-4">
        <h2 ref={heading} tabIndex={-1} className="text-xl font-semibold outline-none" data-testid="step-title">
          {titles[step]}
        </h2>

        {step === 'consent' && state.consent.version && (
          <>
            <Consent
              token={token}
              version={state.consent.version}
              onAccepted={(s) => {
                setState(s);
                setStep(stepFor(s));
              }}
            />
            {qr}
          </>
        )}
        {step === 'selfie' && (
          <WalletOffer token={token} state={state} divider onDecided={walletDecided} onActive={setWalletActive} />
        )}
        {step === 'selfie' && state.active_liveness?.required && !state.active_liveness.done && (
          <HeadTurnChallenge token={token} onDone={afterChallenge} />
        )}
        {step === 'selfie' && !(state.active_liveness?.required && !state.active_liveness.done) && (
          <PhotoStep
            key="selfie"
            token={token}
            target={{ type: 'selfie' }}
            title={t('selfie.title')}
            intro={t('selfie.intro')}
            qr={qr}
            onUploaded={afterUpload('selfie')}
          />
        )}
        {step === 'stepUp' && (
          <div role="status" aria-live="polite" data-testid="step-up" className="space-y-3">
            <p>{t('stepUp.text')}</p>
            <ul className="list-disc space-y-1 ps-6">
              {DOCUMENT_TYPES.map((d) => (
                <li key={d}>{t(`document.types.${d}`)}</li>
              ))}
            </ul>
            <p>{t('stepUp.how')}</p>
            <p className="rounded-md bg-blue-50 p-3 text-blue-950">{t('stepUp.kept')}</p>
            {/* docs/wallet.md: a wallet's signed age claim decides instead of the document, where it is offered. */}
            <WalletOffer
              token={token}
              state={state}
              intro="insteadOfDocument"
              onDecided={walletDecided}
              onActive={setWalletActive}
            />
            <button type="button" className="btn-primary w-full gap-2" onClick={() => setStep('docType')}>
              {t('stepUp.continue')}
              <Forward />
            </button>
          </div>
        )}
        {step === 'docType' && (
          <fieldset className="space-y-3">
            <legend className="sr-only">{t('document.question')}</legend>
            {state.step_up === 'document' && <p>{t('stepUp.choose')}</p>}
            {DOCUMENT_TYPES.map((d) => (
              <label
                key={d}
                className="flex cursor-pointer items-center gap-3 rounded-lg border border-neutral-300 p-3 has-[:checked]:border-blue-700 has-[:checked]:bg-blue-50"
              >
                <input
                  type="radio"
                  name="doctype"
                  value={d}
                  checked={docType === d}
                  onChange={() => setDocType(d)}
                  className="size-5"
                />
                {t(`document.types.${d}`)}
              </label>
            ))}
            <button type="button" className="btn-primary w-full" onClick={() => setStep('front')}>
              {t('document.start')}
            </button>
          </fieldset>
        )}
        {step === 'front' && (
          <PhotoStep
            key={`front-${docType}`}
            token={token}
            target={{ type: 'document', side: 'front', documentType: docType }}
            title={titles.front}
            intro={t('document.intro')}
            qr={qr}
            onUploaded={afterUpload('front')}
          />
        )}
        {step === 'back' && (
          <PhotoStep
            key="back"
            token={token}
            target={{ type: 'document', side: 'back', documentType: docType }}
            title={t('document.back')}
            intro={t('document.intro')}
            qr={qr}
            onUploaded={afterUpload('back')}
          />
        )}
        {step === 'review' && (
          <div className="space-y-4">
            <p>{t('review.intro')}</p>
            {state.step_up === 'document' && !previews.selfie && <p>{t('stepUp.kept')}</p>}
            <ul className="grid grid-cols-2 gap-3">
              {(Object.keys(previews) as Shot[]).map((k) => (
                <li key={k}>
                  {/* eslint-disable-next-line @next/next/no-img-element -- a local object URL */}
                  <img
                    src={previews[k]!.url}
                    alt={titles[k]}
                    className={`rounded-lg border border-neutral-300 ${previews[k]!.mirrored ? '-scale-x-100' : ''}`}
                  />
                </li>
              ))}
            </ul>
            {errorCode && (
              <p role="alert" className="text-red-800">
                {advise(t, { code: errorCode })}
              </p>
            )}
            <button type="button" className="btn-primary w-full" disabled={busy} onClick={submit}>
              {busy ? t('review.submitting') : t('review.submit')}
            </button>
            <button type="button" className="btn-link" onClick={() => setStep('selfie')}>
              {t('camera.retake')}
            </button>
          </div>
        )}
        {step === 'waiting' && (
          <div role="status" aria-live="polite" className="flex items-center gap-3">
            <span
              aria-hidden="true"
              className="size-6 animate-spin rounded-full border-4 border-blue-700 border-t-transparent"
            />
            {t('waiting')}
          </div>
        )}
        {step === 'result' && (
          <Result
            state={state}
            onRetry={retry}
            // A verification sent back for another try may be decided by a wallet instead of new photos.
            walletOffer={
              <WalletOffer
                token={token}
                state={state}
                intro="stepUp"
                onDecided={walletDecided}
                onActive={setWalletActive}
              />
            }
          />
        )}
      </main>
    </div>
  );
}

function resultTitle(t: Translate, status: string) {
  if (status === 'approved') return t('result.approved');
  if (status === 'declined') return t('result.declined');
  if (status === 'review') return t('result.review');
  if (status === 'resubmission_requested') return t('result.resubmission');
  return t('link.expired');
}

function Result(props: { state: CaptureState; onRetry: () => void; walletOffer?: React.ReactNode }) {
  const { state } = props;
  const t = useTranslations();
  const text: Record<string, string> = {
    approved: t('result.approvedText'),
    declined: t('result.declinedText'),
    review: t('result.reviewText'),
    resubmission_requested: t('result.resubmissionText'),
  };
  const reason = state.reason;
  return (
    <div role="status" aria-live="polite" data-testid="result" data-status={state.status} className="space-y-3">
      <p>{text[state.status] ?? t('link.expiredText')}</p>
      {state.status === 'resubmission_requested' && (
        <>
          {isReasonMessage(reason) && (
            <p className="rounded-md bg-amber-50 p-3 text-amber-950">{t(`reasons.${reason}`)}</p>
          )}
          <p className="text-sm text-neutral-700">{t('result.attemptsLeft', { count: state.attempts_remaining })}</p>
          {props.walletOffer}
          <button type="button" className="btn-primary w-full" onClick={props.onRetry}>
            {t('result.tryAgain')}
          </button>
        </>
      )}
      {state.status !== 'resubmission_requested' && state.return_url && state.return_host && (
        <a
          href={state.return_url}
          rel="noopener noreferrer"
          className="btn-primary flex w-full gap-2 text-center"
          data-testid="return"
        >
          {t('result.backTo', { host: state.return_host })}
          <Forward />
        </a>
      )}
    </div>
  );
}

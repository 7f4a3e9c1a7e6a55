'use client';
/**
 * The hosted capture page's steps: consent → selfie → document (type, front, back unless passport) →
 * review and submit → waiting → result. It resumes where the verification stands (a reload, another
 * device), follows the decision by polling, and offers a retry when a resubmission is requested. When an age
 * estimate could not decide and the workspace steps up to a document (`document_required`), it says so in plain
 * words and asks for the document, keeping the selfie already taken.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { advise, call, type CaptureState } from './api';
import { Consent } from './Consent';
import dynamic from 'next/dynamic';
import { PhotoStep } from './PhotoStep';

/** The head-turn challenge's code loads only where a workspace requires it. */
const HeadTurnChallenge = dynamic(() => import('./HeadTurnChallenge').then((mod) => mod.HeadTurnChallenge));
import { MESSAGES, type Lang, type Messages } from './messages';

type Step = 'consent' | 'selfie' | 'stepUp' | 'docType' | 'front' | 'back' | 'review' | 'waiting' | 'result';
type DocType = 'passport' | 'id_card' | 'driving_licence';
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

const progressKey = (step: Step): keyof Messages['steps'] =>
  step === 'stepUp' || step === 'docType' || step === 'front' || step === 'back' ? 'document' : step === 'waiting' ? 'result' : step;

export function CaptureFlow(props: { token: string; lang: Lang; initial: CaptureState; qrSvg: string | null }) {
  const { token } = props;
  const m = MESSAGES[props.lang];
  const [state, setState] = useState(props.initial);
  const [step, setStep] = useState<Step>(() => stepFor(props.initial));
  const [docType, setDocType] = useState<DocType>((props.initial.media.document_type as DocType) ?? 'id_card');
  const [previews, setPreviews] = useState<Partial<Record<Shot, string>>>({});
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);
  const firstRender = useRef(true);

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

  const afterUpload = (key: Shot) => async (preview: string) => {
    setPreviews((p) => ({ ...p, [key]: preview }));
    const s = await refresh();
    if (s) setStep(stepFor(s));
  };

  const submit = async () => {
    setBusy(true);
    setError(null);
    const r = await call<{ status: string }>(token, '/submit', { method: 'POST' });
    setBusy(false);
    if (!r.ok) return setError(advise(m, r));
    await refresh();
    setStep(r.data.status === 'submitted' ? 'waiting' : 'result');
  };

  const retry = () => {
    setPreviews({});
    setStep(state.reason === 'document_quality' ? 'docType' : 'selfie');
  };

  const steps: (keyof Messages['steps'])[] = ['consent', 'selfie', ...(state.needs_document ? (['document'] as const) : []), 'review', 'result'];
  const current = steps.indexOf(progressKey(step));
  const qr = props.qrSvg ? (
    <div className="hidden rounded-lg border border-neutral-300 p-4 md:block">
      <h3 className="font-semibold">{m.otherDevice}</h3>
      <p className="text-sm text-neutral-700">{m.otherDeviceHint}</p>
      <div className="mx-auto mt-3 w-44" role="img" aria-label={m.otherDevice} dangerouslySetInnerHTML={{ __html: props.qrSvg }} />
    </div>
  ) : null;

  const titles: Record<Step, string> = {
    consent: m.steps.consent,
    selfie: m.selfieTitle,
    stepUp: m.stepUp.title,
    docType: m.documentType,
    front: docType === 'passport' ? m.passportFront : m.documentFront,
    back: m.documentBack,
    review: m.reviewTitle,
    waiting: m.waiting,
    result: resultTitle(m, state.status),
  };

  return (
    <div lang={props.lang} className="mx-auto flex min-h-screen w-full max-w-xl flex-col gap-5 px-4 py-6">
      <header className="space-y-1">
        <p className="text-sm text-neutral-600">{m.forWorkspace(state.workspace_name)}</p>
        <h1 className="text-2xl font-bold">{state.flow === 'kyc' ? m.titleKyc : m.title}</h1>
        {state.mode === 'test' && <p className="rounded bg-neutral-100 p-2 text-sm">{m.testMode}</p>}
      </header>

      <nav aria-label={m.stepOf(current + 1, steps.length, m.steps[steps[current]])}>
        <ol className="flex gap-1" data-testid="progress">
          {steps.map((s, i) => (
            <li key={s} aria-current={i === current ? 'step' : undefined} className="flex-1">
              <span className={`block h-1.5 rounded ${i <= current ? 'bg-blue-700' : 'bg-neutral-300'}`} aria-hidden="true" />
              <span className={`mt-1 block text-xs ${i === current ? 'font-semibold text-neutral-900' : 'text-neutral-600'}`}>{m.steps[s]}</span>
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
            <Consent token={token} m={m} version={state.consent.version} onAccepted={(s) => { setState(s); setStep(stepFor(s)); }} />
            {qr}
          </>
        )}
        {step === 'selfie' && state.active_liveness?.required && !state.active_liveness.done && <HeadTurnChallenge token={token} m={m} onDone={afterChallenge} />}
        {step === 'selfie' && !(state.active_liveness?.required && !state.active_liveness.done) && (
          <PhotoStep key="selfie" token={token} m={m} target={{ type: 'selfie' }} title={m.selfieTitle} intro={m.selfieIntro} qr={qr} onUploaded={afterUpload('selfie')} />
        )}
        {step === 'stepUp' && (
          <div role="status" aria-live="polite" data-testid="step-up" className="space-y-3">
            <p>{m.stepUp.text}</p>
            <ul className="list-disc space-y-1 pl-6">
              {(['passport', 'id_card', 'driving_licence'] as const).map((t) => (
                <li key={t}>{m.docTypes[t]}</li>
              ))}
            </ul>
            <p>{m.stepUp.how}</p>
            <p className="rounded-md bg-blue-50 p-3 text-blue-950">{m.stepUp.kept}</p>
            <button type="button" className="btn-primary w-full" onClick={() => setStep('docType')}>
              {m.stepUp.continue}
            </button>
          </div>
        )}
        {step === 'docType' && (
          <fieldset className="space-y-3">
            <legend className="sr-only">{m.documentType}</legend>
            {state.step_up === 'document' && <p>{m.stepUp.choose}</p>}
            {(['passport', 'id_card', 'driving_licence'] as const).map((t) => (
              <label key={t} className="flex cursor-pointer items-center gap-3 rounded-lg border border-neutral-300 p-3 has-[:checked]:border-blue-700 has-[:checked]:bg-blue-50">
                <input type="radio" name="doctype" value={t} checked={docType === t} onChange={() => setDocType(t)} className="size-5" />
                {m.docTypes[t]}
              </label>
            ))}
            <button type="button" className="btn-primary w-full" onClick={() => setStep('front')}>
              {m.startCamera}
            </button>
          </fieldset>
        )}
        {step === 'front' && (
          <PhotoStep key={`front-${docType}`} token={token} m={m} target={{ type: 'document', side: 'front', documentType: docType }} title={titles.front} intro={m.documentIntro} qr={qr} onUploaded={afterUpload('front')} />
        )}
        {step === 'back' && (
          <PhotoStep key="back" token={token} m={m} target={{ type: 'document', side: 'back', documentType: docType }} title={m.documentBack} intro={m.documentIntro} qr={qr} onUploaded={afterUpload('back')} />
        )}
        {step === 'review' && (
          <div className="space-y-4">
            <p>{m.reviewIntro}</p>
            {state.step_up === 'document' && !previews.selfie && <p>{m.stepUp.kept}</p>}
            <ul className="grid grid-cols-2 gap-3">
              {(Object.keys(previews) as Shot[]).map((k) => (
                <li key={k}>
                  {/* eslint-disable-next-line @next/next/no-img-element -- a local object URL */}
                  <img src={previews[k]} alt={titles[k]} className="rounded-lg border border-neutral-300" />
                </li>
              ))}
            </ul>
            {error && <p role="alert" className="text-red-800">{error}</p>}
            <button type="button" className="btn-primary w-full" disabled={busy} onClick={submit}>
              {busy ? m.submitting : m.submit}
            </button>
            <button type="button" className="btn-link" onClick={() => setStep('selfie')}>
              {m.retake}
            </button>
          </div>
        )}
        {step === 'waiting' && (
          <div role="status" aria-live="polite" className="flex items-center gap-3">
            <span aria-hidden="true" className="size-6 animate-spin rounded-full border-4 border-blue-700 border-t-transparent" />
            {m.waiting}
          </div>
        )}
        {step === 'result' && <Result m={m} state={state} onRetry={retry} />}
      </main>
    </div>
  );
}

function resultTitle(m: Messages, status: string) {
  if (status === 'approved') return m.approved;
  if (status === 'declined') return m.declined;
  if (status === 'review') return m.review;
  if (status === 'resubmission_requested') return m.resubmission;
  return m.expired;
}

function Result(props: { m: Messages; state: CaptureState; onRetry: () => void }) {
  const { m, state } = props;
  const text: Record<string, string> = { approved: m.approvedText, declined: m.declinedText, review: m.reviewText, resubmission_requested: m.resubmissionText };
  return (
    <div role="status" aria-live="polite" data-testid="result" data-status={state.status} className="space-y-3">
      <p>{text[state.status] ?? m.expiredText}</p>
      {state.status === 'resubmission_requested' && (
        <>
          {state.reason && m.reasons[state.reason] && <p className="rounded-md bg-amber-50 p-3 text-amber-950">{m.reasons[state.reason]}</p>}
          <p className="text-sm text-neutral-700">{m.attemptsLeft(state.attempts_remaining)}</p>
          <button type="button" className="btn-primary w-full" onClick={props.onRetry}>
            {m.tryAgain}
          </button>
        </>
      )}
      {state.status !== 'resubmission_requested' && state.return_url && state.return_host && (
        <a href={state.return_url} rel="noopener noreferrer" className="btn-primary block w-full text-center" data-testid="return">
          {m.backTo(state.return_host)}
        </a>
      )}
    </div>
  );
}

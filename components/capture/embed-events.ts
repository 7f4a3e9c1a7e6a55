'use client';
/**
 * The capture page's events for the site that embeds it (docs/sdks.md "Embedding the flow"): `loaded`, `step`,
 * `submitted`, `completed`, `error`, each with the verification's id and nothing personal (no name, no photo,
 * no age, no reason text). Sent by postMessage only to the origin the server accepted for this verification (the
 * link's `embed` parameter, on the workspace's `embed_origins`: lib/domain/capture/embed.ts), and only to the
 * window that framed the page, or opened it in a new tab: the browser itself drops a message whose target
 * origin is not that window's. Hints for the interface: the integrator's backend trusts only the API or a webhook.
 */
import { useEffect, useRef } from 'react';

export type EmbedTarget = { origin: string; verificationId: string };

export const EMBED_SOURCE = 'open-verify';
/** `wallet`: the person is proving their age with a digital ID wallet (docs/wallet.md), offered beside the selfie and the document. */
export type EmbedStep = 'consent' | 'selfie' | 'document' | 'wallet' | 'review';
export type EmbedEvent =
  | { type: 'loaded'; status: string }
  | { type: 'step'; step: EmbedStep }
  | { type: 'submitted' }
  | { type: 'completed'; status: 'approved' | 'declined' | 'review' | 'resubmission_requested' }
  | { type: 'error'; code: string };

const DECIDED = ['approved', 'declined', 'review', 'resubmission_requested'] as const;
type Decided = (typeof DECIDED)[number];
const isDecided = (s: string | undefined): s is Decided => (DECIDED as readonly string[]).includes(s ?? '');

/** The page's steps (CaptureFlow) as the events name them; waiting and result have none. */
export function embedStep(step: string): EmbedStep | null {
  if (step === 'consent' || step === 'selfie' || step === 'wallet' || step === 'review') return step;
  if (step === 'stepUp' || step === 'docType' || step === 'front' || step === 'back') return 'document';
  return null;
}

/**
 * The events a change of the verification's status sends: a submission (seen as `submitted`, or straight as a
 * decision when the pipeline was quicker than the page) is `submitted`, then a decision `completed`.
 */
export function statusEvents(before: string, after: string): EmbedEvent[] {
  if (before === after) return [];
  const out: EmbedEvent[] = [];
  const inProgress = before !== 'submitted' && (!isDecided(before) || before === 'resubmission_requested');
  if ((after === 'submitted' || isDecided(after)) && inProgress) out.push({ type: 'submitted' });
  if (isDecided(after)) out.push({ type: 'completed', status: after });
  if (after === 'expired' || after === 'abandoned') out.push({ type: 'error', code: after });
  return out;
}

/** The camera is out of reach in this frame (no delegation, or a browser that gives frames none). */
function cameraRefusedInFrame(): boolean {
  if (window.parent === window) return false;
  const policy = document as Document & {
    permissionsPolicy?: { allowsFeature(f: string): boolean };
    featurePolicy?: { allowsFeature(f: string): boolean };
  };
  const p = policy.permissionsPolicy ?? policy.featurePolicy;
  if (p && !p.allowsFeature('camera')) return true;
  return typeof navigator.mediaDevices?.getUserMedia !== 'function';
}

/** CaptureFlow's one line: the events of its step, status and errors, when the page is embedded. */
export function useEmbedEvents(
  target: EmbedTarget | null | undefined,
  step: string,
  status: string,
  errorCode: string | null,
) {
  const seen = useRef<{ step: EmbedStep | null; status: string } | null>(null);
  const origin = target?.origin;
  const id = target?.verificationId;

  useEffect(() => {
    if (!origin || !id) return;
    const to = window.parent !== window ? window.parent : (window.opener as Window | null);
    if (!to) return;
    const post = (e: EmbedEvent) => to.postMessage({ source: EMBED_SOURCE, verification_id: id, ...e }, origin);
    const next = embedStep(step);
    if (!seen.current) {
      post({ type: 'loaded', status });
      if (cameraRefusedInFrame()) post({ type: 'error', code: 'camera_unavailable' });
      if (next) post({ type: 'step', step: next });
      if (isDecided(status)) post({ type: 'completed', status });
      seen.current = { step: next, status };
      return;
    }
    if (next && next !== seen.current.step) post({ type: 'step', step: next });
    for (const e of statusEvents(seen.current.status, status)) post(e);
    seen.current = { step: next, status };
  }, [origin, id, step, status]);

  useEffect(() => {
    if (!origin || !id || !errorCode) return;
    const to = window.parent !== window ? window.parent : (window.opener as Window | null);
    to?.postMessage({ source: EMBED_SOURCE, verification_id: id, type: 'error', code: errorCode }, origin);
  }, [origin, id, errorCode]);
}

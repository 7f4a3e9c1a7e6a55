/**
 * @open-verify/embed: the hosted verification page inside the integrator's own page (docs/sdks.md "Embedding the
 * flow"). `openVerification({ url, … })` shows the verification's `url` in a modal (or in the given element) as an
 * iframe allowed the camera and the Digital Credentials API, and reports the page's events. Where a frame cannot
 * use the camera (an in-app browser, a browser that gives frames no camera), the page continues in a new tab and
 * the events keep coming. No runtime dependencies.
 *
 * The events are hints for the interface. Decide nothing on them: the integrator's backend trusts only the signed
 * API (GET /v1/verifications/{id}) or a signed webhook.
 */

export type VerificationStep = 'consent' | 'selfie' | 'document' | 'wallet' | 'review';
export type DecidedStatus = 'approved' | 'declined' | 'review' | 'resubmission_requested';

export type VerificationEvent =
  | { type: 'loaded'; verification_id: string; status: string }
  | { type: 'step'; verification_id: string; step: VerificationStep }
  | { type: 'submitted'; verification_id: string }
  | { type: 'completed'; verification_id: string; status: DecidedStatus }
  | { type: 'cancelled'; verification_id: string | null }
  | { type: 'error'; verification_id: string | null; code: string };

export interface OpenVerificationOptions {
  /** The verification's `url`, as POST /v1/verifications returned it. */
  url: string;
  /** Show the page inside this element (it fills it); without one, in a modal (full screen on a phone). */
  container?: HTMLElement;
  onEvent?: (event: VerificationEvent) => void;
  onComplete?: (event: Extract<VerificationEvent, { type: 'completed' }>) => void;
  onCancel?: (event: Extract<VerificationEvent, { type: 'cancelled' }>) => void;
  onError?: (event: Extract<VerificationEvent, { type: 'error' }>) => void;
  /** Start in a new tab rather than a frame. */
  newTab?: boolean;
  /** The words the SDK itself shows (the page has its own languages). */
  labels?: Partial<Labels>;
}

export interface Labels {
  title: string;
  close: string;
  newTabText: string;
  newTabButton: string;
}

export interface VerificationHandle {
  /** Removes the frame (or stops following the tab) and the listener. Sends no `cancelled`. */
  close(): void;
  /** 'frame', or 'tab' once the page runs in a new tab. */
  readonly mode: 'frame' | 'tab';
}

const LABELS: Labels = {
  title: 'Identity verification',
  close: 'Close',
  newTabText:
    'This browser does not let the camera work inside this page. Continue in a new tab; this page follows along.',
  newTabButton: 'Continue in a new tab',
};

const STEPS = ['consent', 'selfie', 'document', 'wallet', 'review'];
const DECIDED = ['approved', 'declined', 'review', 'resubmission_requested'];
const TOKEN = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * A message from the verification page, or null: it must come from the page's origin and from the window this
 * SDK opened, carry the page's marker, a verification id and a known event type. Only the known fields are kept.
 */
export function acceptMessage(
  ev: { origin: string; source: unknown; data: unknown },
  expected: { origin: string; source: unknown },
): VerificationEvent | null {
  if (ev.origin !== expected.origin || !expected.source || ev.source !== expected.source) return null;
  const d = ev.data as Record<string, unknown> | null;
  if (!d || typeof d !== 'object' || d.source !== 'open-verify') return null;
  const id = d.verification_id;
  if (typeof id !== 'string' || !TOKEN.test(id)) return null;
  const word = (v: unknown, list?: string[]) => typeof v === 'string' && TOKEN.test(v) && (!list || list.includes(v));
  switch (d.type) {
    case 'loaded':
      return word(d.status) ? { type: 'loaded', verification_id: id, status: d.status as string } : null;
    case 'step':
      return word(d.step, STEPS) ? { type: 'step', verification_id: id, step: d.step as VerificationStep } : null;
    case 'submitted':
      return { type: 'submitted', verification_id: id };
    case 'completed':
      return word(d.status, DECIDED)
        ? { type: 'completed', verification_id: id, status: d.status as DecidedStatus }
        : null;
    case 'error':
      return word(d.code) ? { type: 'error', verification_id: id, code: d.code as string } : null;
    default:
      return null;
  }
}

/** In-app browsers (WebViews of social and messaging apps) that give a frame no camera. */
const IN_APP = /FBAN|FBAV|FB_IAB|Instagram|Line\/|MicroMessenger|Snapchat|musical_ly|Bytedance|; wv\)/;

/** Whether this browser should run the page in a new tab from the start. */
export function frameUnsupported(nav: { userAgent: string; mediaDevices?: { getUserMedia?: unknown } }): boolean {
  return typeof nav.mediaDevices?.getUserMedia !== 'function' || IN_APP.test(nav.userAgent);
}

const css = <T extends HTMLElement>(el: T, style: string): T => {
  el.style.cssText = style;
  return el;
};

export function openVerification(opts: OpenVerificationOptions): VerificationHandle {
  const labels = { ...LABELS, ...opts.labels };
  const target = new URL(opts.url, location.href);
  target.searchParams.set('embed', location.origin);
  const origin = target.origin;
  const doc = document;
  let win: Window | null = null;
  let mode: 'frame' | 'tab' = 'frame';
  let id: string | null = null;
  let finished = false;
  let closed = false;
  let watch: ReturnType<typeof setInterval> | undefined;
  let overlay: HTMLElement | undefined;

  const emit = (e: VerificationEvent) => {
    opts.onEvent?.(e);
    if (e.type === 'completed') opts.onComplete?.(e);
    if (e.type === 'cancelled') opts.onCancel?.(e);
    if (e.type === 'error') opts.onError?.(e);
  };

  const close = () => {
    if (closed) return;
    closed = true;
    removeEventListener('message', onMessage);
    removeEventListener('keydown', onKey);
    clearInterval(watch);
    overlay?.remove();
    frame?.remove();
    panel.remove();
  };
  const cancel = () => {
    if (closed) return;
    const done = finished;
    close();
    if (!done) emit({ type: 'cancelled', verification_id: id });
  };
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'Escape' && overlay) cancel();
  };

  const openTab = () => {
    frame?.remove();
    frame = undefined;
    mode = 'tab';
    win = open(target.href, '_blank');
    if (!win) return emit({ type: 'error', verification_id: id, code: 'popup_blocked' });
    overlay?.remove();
    overlay = undefined;
    panel.remove();
    // A tab closed before a decision is a cancel.
    watch = setInterval(() => {
      if (win?.closed) cancel();
    }, 500);
  };

  // Shown in place of the frame when the page says the camera cannot work in it.
  const panel = css(doc.createElement('div'), 'padding:24px;font:16px/1.5 system-ui,sans-serif;color:#111');
  const text = doc.createElement('p');
  text.textContent = labels.newTabText;
  const button = css(
    doc.createElement('button'),
    'margin-top:12px;padding:12px 16px;border:0;border-radius:8px;background:#1d4ed8;color:#fff;font:inherit;cursor:pointer',
  );
  button.type = 'button';
  button.textContent = labels.newTabButton;
  button.onclick = openTab;
  panel.append(text, button);

  const onMessage = (ev: MessageEvent) => {
    const e = acceptMessage(ev, { origin, source: win });
    if (!e) return;
    id = e.verification_id;
    if (e.type === 'completed') finished = true;
    emit(e);
    if (e.type === 'error' && e.code === 'camera_unavailable' && mode === 'frame' && frame) frame.replaceWith(panel);
  };
  addEventListener('message', onMessage);

  let frame: HTMLIFrameElement | undefined;
  if (opts.newTab || frameUnsupported(navigator)) {
    openTab();
  } else {
    frame = css(doc.createElement('iframe'), 'display:block;flex:1;border:0;width:100%;height:100%;min-height:0');
    frame.allow = 'camera; digital-credentials-get; fullscreen';
    frame.title = labels.title;
    frame.src = target.href;
    let host = opts.container;
    if (!host) {
      const phone = matchMedia('(max-width: 600px)').matches;
      overlay = css(
        doc.createElement('div'),
        'position:fixed;inset:0;z-index:2147483647;display:flex;align-items:center;justify-content:center;background:rgba(0,0,0,.55)',
      );
      const dialog = css(
        doc.createElement('div'),
        `display:flex;flex-direction:column;background:#fff;overflow:hidden;${phone ? 'width:100%;height:100%' : 'width:min(520px,100% - 32px);height:min(860px,100% - 32px);border-radius:12px'}`,
      );
      dialog.setAttribute('role', 'dialog');
      dialog.setAttribute('aria-modal', 'true');
      dialog.setAttribute('aria-label', labels.title);
      // A bar of its own for the close button, so it covers nothing of the page.
      const bar = css(
        doc.createElement('div'),
        'display:flex;justify-content:flex-end;flex:none;padding:4px;border-bottom:1px solid #e5e5e5',
      );
      const x = css(
        doc.createElement('button'),
        'width:40px;height:40px;border:0;border-radius:20px;background:transparent;color:#111;font:24px/40px system-ui,sans-serif;cursor:pointer',
      );
      x.type = 'button';
      x.textContent = '×';
      x.setAttribute('aria-label', labels.close);
      x.onclick = cancel;
      bar.append(x);
      dialog.append(bar);
      overlay.append(dialog);
      doc.body.append(overlay);
      addEventListener('keydown', onKey);
      host = dialog;
    }
    host.append(frame);
    win = frame.contentWindow;
  }

  return {
    close,
    get mode() {
      return mode;
    },
  };
}

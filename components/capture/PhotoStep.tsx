'use client';
/**
 * One photo (a selfie, or one side of a document): the camera with live guidance, or a file when the
 * camera is denied, missing or blocked by an in-app browser. The photo is uploaded to the capture
 * endpoint, which validates it exactly as /v1 does; its verdict comes back as plain advice.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import Webcam from 'react-webcam';
import dynamic from 'next/dynamic';
import { useTranslations } from 'next-intl';
import { advise, call, MAX_UPLOAD_MB } from './api';
import { checkSelfieFrame, loadFaceDetector, type Advice } from './face-check';
import type { DocumentAdvice } from './document-guide/find-document';

/** The upload fallback's code (the dropzone and UploadThing's helpers) loads only when it is shown. */
const PhotoDropzone = dynamic(() => import('./PhotoDropzone').then((mod) => mod.PhotoDropzone), {
  loading: () => <div className="min-h-40 rounded-lg border-2 border-dashed border-neutral-400" aria-hidden="true" />,
});

/** The document step's live guide (outline, glare, blur, distance, auto-capture) loads only on the document step. */
const DocumentGuide = dynamic(() => import('./DocumentGuide').then((mod) => mod.DocumentGuide), { ssr: false });

export type PhotoTarget = { type: 'selfie' } | { type: 'document'; side: 'front' | 'back'; documentType: string };
type CameraState = 'starting' | 'live' | 'denied' | 'nocamera' | 'inapp' | 'error' | 'off';

const IN_APP = /FBAN|FBAV|Instagram|Line\/|MicroMessenger|Snapchat|TikTok|; wv\)/i;
/** Consecutive passing frames before the capture button enables (steadiness). */
const READY_FRAMES = 2;

export function PhotoStep(props: {
  token: string;
  target: PhotoTarget;
  title: string;
  intro: string;
  qr: React.ReactNode;
  onUploaded: (preview: string, mirrored: boolean) => void;
}) {
  const { token, target, onUploaded } = props;
  const t = useTranslations();
  const selfie = target.type === 'selfie';
  const [camera, setCamera] = useState<CameraState>(() => {
    if (typeof navigator === 'undefined') return 'starting';
    if (IN_APP.test(navigator.userAgent)) return 'inapp';
    return typeof navigator.mediaDevices?.getUserMedia === 'function' ? 'starting' : 'nocamera';
  });
  const [advice, setAdvice] = useState<Advice | DocumentAdvice | 'loading'>('loading');
  const [readyFrames, setReadyFrames] = useState(0);
  const [preview, setPreview] = useState<{ url: string; blob: Blob; mirrored?: boolean } | null>(null);
  const [uploading, setUploading] = useState(false);
  /** the server's code for a refused upload, shown in the page's language (which may change) */
  const [error, setError] = useState<string | null>(null);
  /** the document guide may take the photo by itself: not again after a refusal until the document has moved */
  const [autoArmed, setAutoArmed] = useState(true);
  const webcam = useRef<Webcam>(null);

  // The selfie's guidance loop: one check at a time, about four a second, while the camera is live (the document's
  // is the DocumentGuide's).
  useEffect(() => {
    if (camera !== 'live' || preview || !selfie) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout>;
    const tick = async () => {
      const video = webcam.current?.video;
      if (video && video.readyState >= 2) {
        try {
          const r = await checkSelfieFrame(video);
          if (stopped) return;
          setAdvice(r.advice);
          setReadyFrames((n) => (r.advice === 'ready' ? n + 1 : 0));
        } catch {
          if (!stopped) setAdvice('noFace');
        }
      }
      if (!stopped) timer = setTimeout(tick, 250);
    };
    loadFaceDetector().catch((e) => {
      console.warn('face detector failed to load', e); // the page falls back to the upload
      setCamera('error');
    });
    void tick();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [camera, preview, selfie]);

  const onCameraError = useCallback((e: string | DOMException) => {
    const name = typeof e === 'string' ? e : e.name;
    setCamera(
      name === 'NotAllowedError' || name === 'SecurityError'
        ? 'denied'
        : name === 'NotFoundError' || name === 'OverconstrainedError'
          ? 'nocamera'
          : 'error',
    );
  }, []);

  /** The frame at the camera's own resolution, as a JPEG (a canvas blob: the CSP allows no data: fetches). */
  const grab = async () => {
    const canvas = webcam.current?.getCanvas();
    return (canvas && (await new Promise<Blob | null>((r) => canvas.toBlob(r, 'image/jpeg', 0.92)))) || null;
  };

  const take = async () => {
    const blob = await grab();
    // The selfie camera's preview is mirrored (as a mirror is): the still is shown the same way, so the photo does
    // not flip on capture. The file sent is the frame as the camera gave it.
    if (blob) setPreview({ url: URL.createObjectURL(blob), blob, mirrored: selfie });
  };

  /** The document guide saw the document placed, steady and sharp: the photo is taken and sent at once. */
  const autoTake = async () => {
    const blob = await grab();
    if (!blob) return;
    setPreview({ url: URL.createObjectURL(blob), blob });
    if (!(await upload(blob))) setAutoArmed(false);
  };

  const onDocumentAdvice = useCallback((a: DocumentAdvice) => {
    setAdvice(a);
    if (a !== 'ready') setAutoArmed(true);
  }, []);

  /** `mirrored`: the still was shown mirrored (a selfie from the camera), and its thumbnail later is too. */
  const upload = async (blob: Blob, mirrored = false) => {
    setUploading(true);
    setError(null);
    const form = new FormData();
    form.append('type', target.type);
    if (target.type === 'document') {
      form.append('side', target.side);
      form.append('document_type', target.documentType);
    }
    form.append('file', blob, 'photo.jpg');
    const r = await call(token, '/media', { method: 'POST', body: form });
    setUploading(false);
    if (r.ok) {
      onUploaded(URL.createObjectURL(blob), mirrored);
      return true;
    }
    // Refused (DOCUMENT_UNREADABLE, …): the advice, and the camera again at once (a refused photo spends no attempt).
    setError(r.code);
    setPreview(null);
    setReadyFrames(0);
    return false;
  };

  const fallbackText = {
    denied: t('camera.denied'),
    nocamera: t('camera.none'),
    inapp: t('camera.inApp'),
    error: t('camera.error'),
  } as Record<string, string>;
  // A document can always be taken by hand (the guide may not see every document); a selfie once its checks pass.
  const canCapture = camera === 'live' && !uploading && (!selfie || readyFrames >= READY_FRAMES);
  let adviceText: string;
  if (selfie) adviceText = advice === 'loading' ? t('camera.modelLoading') : t(`advice.${advice as Advice}`);
  else adviceText = advice === 'loading' ? t('advice.documentReady') : t(`documentAdvice.${advice as DocumentAdvice}`);

  return (
    <div className="space-y-4">
      <p>{props.intro}</p>
      {error && (
        <p role="alert" className="rounded-md border border-red-300 bg-red-50 p-3 text-red-900">
          {advise(t, { code: error })}
        </p>
      )}

      {preview ? (
        <div className="space-y-3">
          {/* eslint-disable-next-line @next/next/no-img-element -- a local object URL, nothing to optimise */}
          <img
            src={preview.url}
            alt={props.title}
            className={`w-full rounded-lg border border-neutral-300 ${preview.mirrored ? '-scale-x-100' : ''}`}
            data-testid="photo-preview"
          />
          {uploading && <p role="status">{t('camera.checking')}</p>}
          <div className="flex gap-3">
            <button
              type="button"
              className="btn-secondary flex-1"
              disabled={uploading}
              onClick={() => setPreview(null)}
            >
              {t('camera.retake')}
            </button>
            <button
              type="button"
              className="btn-primary flex-1"
              disabled={uploading}
              onClick={() => upload(preview.blob, preview.mirrored)}
            >
              {t('camera.usePhoto')}
            </button>
          </div>
        </div>
      ) : camera === 'starting' || camera === 'live' ? (
        <div className="space-y-3">
          <div className="relative overflow-hidden rounded-lg bg-neutral-900">
            <Webcam
              ref={webcam}
              audio={false}
              forceScreenshotSourceSize
              videoConstraints={{
                facingMode: selfie ? 'user' : { ideal: 'environment' },
                width: { ideal: 1280 },
                height: { ideal: 720 },
              }}
              onUserMedia={() => setCamera('live')}
              onUserMediaError={onCameraError}
              aria-label={props.title}
              className={`aspect-[4/3] w-full object-cover ${selfie ? '-scale-x-100' : ''}`}
              data-testid="camera"
            />
            {selfie && (
              <div
                aria-hidden="true"
                className="pointer-events-none absolute inset-[12%_22%] rounded-[50%] border-4 border-white/70"
              />
            )}
            {!selfie && (
              <DocumentGuide
                video={() => webcam.current?.video}
                active={camera === 'live' && !preview && !uploading}
                armed={autoArmed}
                onAdvice={onDocumentAdvice}
                onSteady={autoTake}
              />
            )}
          </div>
          <p
            role="status"
            aria-live="polite"
            data-testid="advice"
            data-advice={advice}
            className={`rounded-md p-3 font-medium ${advice === 'ready' ? 'bg-green-50 text-green-900' : 'bg-amber-50 text-amber-900'}`}
          >
            {camera === 'starting' ? t('camera.starting') : adviceText}
          </p>
          <button type="button" className="btn-primary w-full" disabled={!canCapture} onClick={take}>
            {t('camera.capture')}
          </button>
          <button type="button" className="btn-link" onClick={() => setCamera('off')}>
            {t('camera.uploadInstead')}
          </button>
        </div>
      ) : (
        <div className="space-y-4">
          {camera !== 'off' && (
            <p role="alert" className="rounded-md border border-amber-300 bg-amber-50 p-3 text-amber-950">
              {fallbackText[camera]}
            </p>
          )}
          <PhotoDropzone
            label={t('camera.dropzone')}
            hint={t('camera.dropzoneHint', { size: MAX_UPLOAD_MB })}
            onFile={(file) => setPreview({ url: URL.createObjectURL(file), blob: file })}
          />
          {camera === 'off' && (
            <button type="button" className="btn-link" onClick={() => setCamera('starting')}>
              {t('camera.useCamera')}
            </button>
          )}
          {props.qr}
        </div>
      )}
    </div>
  );
}

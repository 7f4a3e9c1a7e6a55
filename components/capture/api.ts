/** The capture page's calls to its token-authenticated endpoints (/api/capture/{token}/…). */
import type { Locale } from '@/lib/core/i18n/locales';
import { LIMITS } from '@/lib/domain/media/thresholds';
import { isErrorMessage, type Translate } from './message-keys';

export type CaptureState = {
  status: string;
  mode: 'test' | 'live';
  flow: 'age' | 'kyc';
  check_method: string | null;
  workspace_name: string;
  needs_document: boolean;
  /** version.locales: the languages its text is in (lib/domain/consent/paths.ts gives each one's path) */
  consent: { accepted: boolean; version: { id: number; version: string; locales: Locale[] } | null };
  media: { selfie: boolean; document_front: boolean; document_back: boolean; document_type: string | null };
  missing: string[];
  attempts_remaining: number;
  reason: string | null;
  /** 'document' once an age estimate that could not decide stepped the verification up to an ID document */
  step_up?: string | null;
  /** where the integrator asked to send the user back at the end (https), and its host name for the button */
  return_url?: string | null;
  return_host?: string | null;
  /** the head-turn challenge before the selfie, where the workspace requires it */
  active_liveness?: { required: boolean; done: boolean };
  /** the workspace offers a digital ID wallet for this verification now (docs/wallet.md) */
  wallet?: { offer: boolean; age: number };
};

export type ApiResult<T> =
  { ok: true; data: T } | { ok: false; code: string; message: string; details?: Record<string, unknown> };

export async function call<T>(token: string, path: string, init?: RequestInit): Promise<ApiResult<T>> {
  let res: Response;
  try {
    res = await fetch(`/api/capture/${token}${path}`, { cache: 'no-store', ...init });
  } catch {
    return { ok: false, code: 'network', message: 'network' };
  }
  const body = await res.json().catch(() => null);
  if (res.ok && body?.data) return { ok: true, data: body.data as T };
  return {
    ok: false,
    code: body?.error?.code ?? 'generic',
    message: body?.error?.message ?? `HTTP ${res.status}`,
    details: body?.error?.details,
  };
}

/** The upload limit in megabytes, as the page states it. */
export const MAX_UPLOAD_MB = LIMITS.maxFileBytes / 1024 / 1024;

/**
 * A server error in plain words in the page's language: the advice for its code, else a general one (never the
 * server's own English sentence). A request that timed out is a connection problem to the person.
 */
export function advise(t: Translate, r: { code: string }) {
  const code = r.code === 'REQUEST_TIMEOUT' ? 'network' : isErrorMessage(r.code) ? r.code : 'generic';
  return t(`errors.${code}`, { size: MAX_UPLOAD_MB });
}

export async function sha256Hex(bytes: ArrayBuffer): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', bytes);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

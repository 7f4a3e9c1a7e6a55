/**
 * Uploads in progress, bounded per key and per server process (docs/api.md "Media and submit"). An upload is in
 * progress from the moment its headers are accepted until its answer is ready: its body being spooled, its
 * signature checked, its image analysed and stored. Past a bound the upload is refused at once, before a byte of
 * its body is read, with 503 ANALYSIS_QUEUE_FULL and a Retry-After (the answer of a full analysis queue: for
 * the client it is the same condition, "too much of yours is being worked on; send it again shortly").
 *
 * The key is the API key (`ws:<workspace>`) for /v1 and the capture link (`link:<verification>`) for the hosted
 * page: anyone who knows a workspace's public key can hold that key's few places, never the server's.
 * In process memory on globalThis (every route bundle shares it): it bounds this process's own work.
 */
import { DomainError } from '../core/errors';

type UploadBounds = { perKey: number; total: number };

/**
 * Honest clients send one upload at a time per verification (the SDKs, the capture page); an integrator's backend
 * serving many users at once sends a few. 8 per API key and 2 per capture link leave room for that; 32 in all keep
 * the temporary files under 320 MiB and the images being read for analysis under the analysis queue's bounds.
 */
export const UPLOAD_BOUNDS = { perApiKey: 8, perCaptureLink: 2, total: 32 } as const;

type State = { byKey: Map<string, number>; total: number; avgMs: number };
const g = globalThis as unknown as { __ovUploadsInProgress?: State };
const state = (): State => (g.__ovUploadsInProgress ??= { byKey: new Map(), total: 0, avgMs: 1000 });

export type UploadTicket = { release: () => void };

/**
 * Takes a place for an upload of `key`, or throws 503 ANALYSIS_QUEUE_FULL (`details.scope`: `scope` when the key
 * has all its places, `server` when the process has). `release()` gives the place back (once).
 */
export function enterUpload(key: string, perKey: number, scope: 'workspace' | 'verification', total: number = UPLOAD_BOUNDS.total): UploadTicket {
  const s = state();
  const mine = s.byKey.get(key) ?? 0;
  const full = mine >= perKey ? scope : s.total >= total ? 'server' : null;
  if (full) {
    const seconds = Math.min(30, Math.max(1, Math.ceil(s.avgMs / 1000)));
    throw new DomainError(
      'ANALYSIS_QUEUE_FULL',
      `Too many uploads are in progress for ${full === 'server' ? 'the server' : `this ${full}`}. Retry after ${seconds} s.`,
      { scope: full, retry_after: seconds },
      seconds,
    );
  }
  s.byKey.set(key, mine + 1);
  s.total++;
  const started = performance.now();
  let released = false;
  return {
    release: () => {
      if (released) return;
      released = true;
      const left = (s.byKey.get(key) ?? 1) - 1;
      if (left <= 0) s.byKey.delete(key);
      else s.byKey.set(key, left);
      s.total--;
      s.avgMs = 0.8 * s.avgMs + 0.2 * (performance.now() - started);
    },
  };
}

/** For tests and /readyz-style looks: uploads in progress, in all and for a key. */
export function uploadsInProgress(key?: string): number {
  const s = state();
  return key === undefined ? s.total : (s.byKey.get(key) ?? 0);
}

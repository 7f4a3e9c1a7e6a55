/**
 * Uploads in progress, bounded per key and per server process (docs/api.md "Media and submit"). Two kinds of
 * place, taken before a byte of the body is read and refused at once past their bound with 503
 * ANALYSIS_QUEUE_FULL and a Retry-After (the answer of a full analysis queue: for the client it is the same
 * condition, "too much of yours is being worked on; send it again shortly"):
 *  - a key's places (`ws:<workspace>` for /v1, `link:<verification>` for the hosted page): from the moment the
 *    headers are accepted until the answer is ready, body in flight included;
 *  - the server's places, taken only by an upload that has proven who sent it: a /v1 upload once its signature
 *    is checked (its body is then spooled), a capture link's at once (its token is its proof). So uploads that
 *    have not proven a signature, however slow, hold only their own key's places, never the server's.
 * In process memory on globalThis (every route bundle shares it): it bounds this process's own work.
 */
import { DomainError } from '../core/errors';

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

function queueFull(scope: string): DomainError {
  const seconds = Math.min(30, Math.max(1, Math.ceil(state().avgMs / 1000)));
  return new DomainError(
    'ANALYSIS_QUEUE_FULL',
    `Too many uploads are in progress for ${scope === 'server' ? 'the server' : `this ${scope}`}. Retry after ${seconds} s.`,
    { scope, retry_after: seconds },
    seconds,
  );
}

/**
 * Takes a place for an upload of `key`, and one of the server's unless `total` is false (a /v1 upload takes that
 * later, `enterServerSlot`), or throws 503 ANALYSIS_QUEUE_FULL (`details.scope`: `scope` when the key has all its
 * places, `server` when the process has). `release()` gives the places back (once).
 */
export function enterUpload(
  key: string,
  perKey: number,
  scope: 'workspace' | 'verification',
  total: number | false = UPLOAD_BOUNDS.total,
): UploadTicket {
  const s = state();
  const mine = s.byKey.get(key) ?? 0;
  if (mine >= perKey) throw queueFull(scope);
  const server = total === false ? null : enterServerSlot(total);
  s.byKey.set(key, mine + 1);
  const started = performance.now();
  let released = false;
  return {
    release: () => {
      if (released) return;
      released = true;
      const left = (s.byKey.get(key) ?? 1) - 1;
      if (left <= 0) s.byKey.delete(key);
      else s.byKey.set(key, left);
      server?.release();
      s.avgMs = 0.8 * s.avgMs + 0.2 * (performance.now() - started);
    },
  };
}

/** One of the server's places, or 503 ANALYSIS_QUEUE_FULL with `details.scope` `server`. */
export function enterServerSlot(total: number = UPLOAD_BOUNDS.total): UploadTicket {
  const s = state();
  if (s.total >= total) throw queueFull('server');
  s.total++;
  let released = false;
  return {
    release: () => {
      if (released) return;
      released = true;
      s.total--;
    },
  };
}

/** For tests and /readyz-style looks: the server's places taken, or a key's. */
export function uploadsInProgress(key?: string): number {
  const s = state();
  return key === undefined ? s.total : (s.byKey.get(key) ?? 0);
}

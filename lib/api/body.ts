/**
 * Request bodies: read only after the request is known to come from a workspace within its rate limit
 * (lib/api/route.ts), chunk by chunk, refused with 413 the moment they pass their limit (or at once when
 * Content-Length already says so), never buffered beyond it.
 */
import { DomainError } from '../core/errors';
import { assertStorableText } from '../core/input-text';

/**
 * What the route wrapper (lib/api/route.ts) reads of a request: a web `Request` is one; so is the custom server's
 * light request over node's (lib/api/node-dispatch.ts), which spares the API the web Request's cost.
 */
export type ApiRequest = {
  readonly method: string;
  /** The URL as a web Request gives it (absolute): what the request-target falls back to (lib/domain/auth/canonical.ts). */
  readonly url: string;
  readonly headers: { get(name: string): string | null };
  /** The body as a stream, read only when pulled; null for GET and HEAD. */
  readonly body: ReadableStream<Uint8Array> | null;
  /**
   * The whole body, at most `limit` bytes, where the request can read it without a stream (node's, straight from
   * the socket): it answers exactly as `readBodyLimited` over `body` does (the same 413s, the rest of a refused
   * body discarded, BAD_REQUEST for a body cut short).
   */
  readonly readWhole?: (limit: number) => Promise<Uint8Array>;
};

export const JSON_BODY_LIMIT = 64 * 1024;
/** JSON nested deeper than this is refused before it is parsed (recursive code downstream must not overflow). */
export const JSON_MAX_DEPTH = 64;

/**
 * How slowly a body may arrive (SECURITY.md "Failed signatures and uploads"): after a grace of 10 s, at least
 * 16 KiB a second on average since its first byte was asked for, so a body of a declared size has a deadline
 * proportionate to it (10 s + size / 16 KiB/s: 14 s for 64 KiB; a 10 MiB upload reaches the server's 5-minute
 * request timeout first). A body that falls behind is cut off with 408 REQUEST_TIMEOUT and its connection closed:
 * one byte every few seconds no longer holds a connection, a temporary file and an upload's place for minutes.
 * Slow phone networks (EDGE is 20-30 KiB/s) stay above it.
 */
export const BODY_PACE = { graceMs: 10_000, minBytesPerSecond: 16 * 1024 } as const;

export const tooSlow = () =>
  new DomainError(
    'REQUEST_TIMEOUT',
    `The request body arrived too slowly: at least ${BODY_PACE.minBytesPerSecond / 1024} KiB/s after the first ${BODY_PACE.graceMs / 1000} s.`,
  );

/** The body's declared length, or null (chunked, or none given). */
export function declaredLength(req: Pick<ApiRequest, 'headers'>): number | null {
  const n = Number(req.headers.get('content-length') ?? NaN);
  return Number.isFinite(n) && n >= 0 ? n : null;
}

/**
 * Watches a body as it is read (`add` each chunk's bytes, `stop` at its end or failure): calls `onSlow` once when
 * the bytes received fall behind the pace (BODY_PACE), or the declared size's deadline passes. One timer at a time,
 * set for the moment the bytes received would fall behind, so a body that keeps up costs a timer or two.
 */
export function watchPace(
  declared: number | null,
  onSlow: () => void,
  pace: { graceMs: number; minBytesPerSecond: number } = BODY_PACE,
) {
  const started = Date.now();
  const deadline = declared === null ? Infinity : pace.graceMs + (declared / pace.minBytesPerSecond) * 1000;
  let received = 0;
  let timer: NodeJS.Timeout | undefined;
  const dueAt = () => Math.min(deadline, pace.graceMs + (received / pace.minBytesPerSecond) * 1000);
  const check = () => {
    timer = undefined;
    const elapsed = Date.now() - started;
    if (elapsed >= dueAt()) return onSlow();
    timer = setTimeout(check, dueAt() - elapsed + 5);
  };
  timer = setTimeout(check, Math.min(deadline, pace.graceMs));
  return {
    add: (n: number) => void (received += n),
    stop: () => {
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
  };
}

/** 413 at once when the declared length is over the limit. */
export function refuseDeclaredLength(req: Pick<ApiRequest, 'headers'>, limit: number) {
  const declared = Number(req.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
}

/**
 * Streams the body through `onChunk` (awaited: a parser that writes to disk holds the next chunk back), counting
 * bytes: 413 as soon as the total passes `limit`. Whatever `onChunk` throws (a parser refusing the body) stops
 * the reading there; the rest is never read.
 */
export async function streamBody(
  req: ApiRequest,
  limit: number,
  onChunk: (chunk: Uint8Array) => void | Promise<void>,
): Promise<number> {
  refuseDeclaredLength(req, limit);
  if (!req.body) return 0;
  const reader = req.body.getReader();
  let total = 0;
  // Too slow: the read waiting is ended (a cancelled stream's pending read resolves as done) and the body cut off.
  let slow = false;
  const pace = watchPace(declaredLength(req), () => {
    slow = true;
    void reader.cancel(tooSlow()).catch(() => {});
  });
  try {
    for (;;) {
      let next: ReadableStreamReadResult<Uint8Array>;
      try {
        next = await reader.read();
      } catch {
        throw slow ? tooSlow() : cutShort();
      }
      if (slow) throw tooSlow();
      if (next.done) return total;
      total += next.value.byteLength;
      pace.add(next.value.byteLength);
      if (total > limit) throw tooLarge(limit);
      await onChunk(next.value);
    }
  } catch (e) {
    if (!slow) discardLater(req, reader);
    throw e;
  } finally {
    pace.stop();
  }
}

/** Bodies refused mid-way whose rest is still to be read and dropped, by request (`discardRefusedBody`). */
const refusedBodies = new WeakMap<object, () => void>();

/** How long a refused body's rest waits for its answer before it is read and dropped anyway. */
const DISCARD_FALLBACK_MS = 1000;

/**
 * The rest of a body refused mid-way is read and dropped once the answer is ready (the route calls
 * `discardRefusedBody` last), not while the refusal is still being recorded: read at once, a fast client's whole
 * body would be pulled in before its answer. A request whose route never calls it is drained after a second.
 */
function discardLater(req: ApiRequest, reader: ReadableStreamDefaultReader<Uint8Array>) {
  let started = false;
  const start = () => {
    if (started) return;
    started = true;
    clearTimeout(fallback);
    refusedBodies.delete(req);
    void discardRest(reader);
  };
  const fallback = setTimeout(start, DISCARD_FALLBACK_MS);
  fallback.unref?.();
  refusedBodies.set(req, start);
}

/** Reads and drops the rest of `req`'s body if it was refused mid-way (see `discardLater`); otherwise nothing. */
export function discardRefusedBody(req: ApiRequest) {
  refusedBodies.get(req)?.();
}

/** How much of a body refused mid-way is still read and dropped, at most (`discardRest`). */
export const DISCARD_MAX_BYTES = 32 * 1024 * 1024;
export const DISCARD_MAX_MS = 30_000;

/**
 * After a refusal mid-body: read and drop what the client is still sending (nothing is kept), so it gets our
 * answer instead of a reset connection (cancelling the stream destroys the socket before the answer is
 * written). Bounded: at most 32 MiB or 30 s more, then the connection is dropped.
 */
async function discardRest(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  maxBytes = DISCARD_MAX_BYTES,
  maxMs = DISCARD_MAX_MS,
) {
  const until = Date.now() + maxMs;
  let n = 0;
  try {
    while (n <= maxBytes && Date.now() < until) {
      const { done, value } = await reader.read();
      if (done) return;
      n += value.byteLength;
    }
  } catch {
    return;
  }
  await reader.cancel().catch(() => {});
}

/** The whole body, at most `limit` bytes. */
export async function readBodyLimited(req: ApiRequest, limit: number): Promise<Uint8Array> {
  if (req.readWhole) return req.readWhole(limit);
  const chunks: Uint8Array[] = [];
  const total = await streamBody(req, limit, (c) => {
    chunks.push(c);
  });
  return joinChunks(chunks, total);
}

/** `chunks` (`total` bytes in all) in one fresh array of their own. */
export function joinChunks(chunks: readonly Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let off = 0;
  for (const c of chunks) {
    out.set(c, off);
    off += c.byteLength;
  }
  return out;
}

/** A body whose stream failed before its end (the client went away mid-body). */
export const cutShort = () => new DomainError('BAD_REQUEST', 'The request body could not be read to its end.');

export function tooLarge(limit: number) {
  return new DomainError('PAYLOAD_TOO_LARGE', `The request body exceeds ${Math.round(limit / 1024)} KiB.`, {
    limit_bytes: limit,
  });
}

export function isJsonContentType(value: string | null): boolean {
  if (!value) return false;
  const type = value.split(';')[0].trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

/** How deeply arrays and objects nest in JSON text, counted without parsing (strings skipped). Stops past `max`. */
export function jsonDepthOver(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

export function parseJsonBody(raw: Uint8Array): unknown {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(raw);
  } catch {
    throw new DomainError('VALIDATION_ERROR', 'The request body is not valid UTF-8.', {
      fields: { body: ['Invalid UTF-8'] },
    });
  }
  if (jsonDepthOver(text, JSON_MAX_DEPTH)) {
    throw new DomainError('VALIDATION_ERROR', `The request body nests deeper than ${JSON_MAX_DEPTH} levels.`, {
      fields: { body: [`At most ${JSON_MAX_DEPTH} levels of nesting.`] },
    });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new DomainError('VALIDATION_ERROR', 'The request body is not valid JSON.', {
      fields: { body: [(e as Error).message] },
    });
  }
  // "\u0000" and a lone "\ud800" are valid JSON that Postgres cannot store: refused here, naming the field.
  assertStorableText(value);
  return value;
}

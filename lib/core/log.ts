/**
 * Structured logs: pino, one JSON line per event on stderr, with the request id of the request (or job) being
 * served on every line, and its trace id when tracing is on. Whatever is logged passes one redaction first: fields whose names say they hold a
 * secret, a token, a signature, a face or a person's data are replaced, and secret keys and capture links
 * are cut out of any text (an error message, a URL), so a log never carries what this service protects.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import pino from 'pino';
import { env } from './env';
import { activeTraceIds } from './observability/tracing';

/** Field names never logged with their value (matched anywhere in the object, case-insensitively). */
const SECRET_FIELD =
  /secret|token|password|passwd|signature|authorization|cookie|api[_-]?key|ciphertext|embedding|surname|given_?names?|birth|date_of_birth|dob|document_?number|number_masked|email|totp|recovery|^person$|^image$|^bytes$|photo|external_?metadata|^analysis$|wrapped|private_?key|result_?sealed|data_?key$/i;
/** Text never logged: secret keys, capture links' tokens, bearer credentials. */
const SECRET_TEXT: [RegExp, string][] = [
  [/sk_(test|live)_[A-Za-z0-9]{56}/g, 'sk_$1_[redacted]'],
  [/\/verify\/[A-Za-z0-9_-]{20,}/g, '/verify/[redacted]'],
  [/\/api\/capture\/[A-Za-z0-9_-]{20,}/g, '/api/capture/[redacted]'],
  [/(bearer|basic)\s+[A-Za-z0-9._~+/=-]+/gi, '$1 [redacted]'],
];
export const REDACTED = '[redacted]';

export function scrubText(s: string): string {
  let out = dropQueryParams(s);
  for (const [re, by] of SECRET_TEXT) out = out.replace(re, by);
  return out;
}

/** A copy of `value` fit for a log line: secrets and personal data replaced, errors flattened. */
export function redact(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return scrubText(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth > 6) return '[deep]';
  if (value instanceof Error) return errorFields(value, depth);
  if (value instanceof Date) return value.toISOString();
  if (ArrayBuffer.isView(value)) return `[${value.byteLength} bytes]`;
  if (Array.isArray(value)) return value.slice(0, 50).map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = SECRET_FIELD.test(k) ? REDACTED : redact(v, depth + 1);
  return out;
}

/**
 * A failed query's error (drizzle: "Failed query: <sql>\nparams: <values>") carries the values it bound — a
 * capture token, a name, a ciphertext: the SQL stays, the values go.
 */
export function dropQueryParams(s: string): string {
  const i = s.indexOf('\nparams: ');
  if (i < 0) return s;
  const at = s.indexOf('\n    at ', i);
  return `${s.slice(0, i)}\nparams: ${REDACTED}${at >= 0 ? s.slice(at) : ''}`;
}

function errorFields(e: Error, depth: number): Record<string, unknown> {
  const f: Record<string, unknown> = {
    name: e.name,
    message: scrubText(dropQueryParams(e.message)),
    stack: e.stack && scrubText(dropQueryParams(e.stack)),
  };
  const code = (e as { code?: unknown }).code;
  if (code !== undefined) f.code = code;
  if (e.cause !== undefined && depth < 6) f.cause = redact(e.cause, depth + 1);
  return f;
}

/**
 * A copy of an error fit for a console line: its name, message and stack without the values a query bound, its
 * cause likewise, and none of the driver's own fields (drizzle's `params`, PostgreSQL's `detail` and `where`,
 * which quote the values of a row); Next.js's `digest` and the error's `code` kept.
 */
function consoleSafeError(e: Error, depth: number): Error {
  const out = new Error(scrubText(e.message));
  out.name = e.name;
  out.stack = e.stack === undefined ? undefined : scrubText(e.stack);
  for (const k of ['digest', 'code'] as const) {
    const v = (e as unknown as Record<string, unknown>)[k];
    if (typeof v === 'string' || typeof v === 'number') (out as unknown as Record<string, unknown>)[k] = v;
  }
  if (e.cause !== undefined && depth < 6)
    out.cause = e.cause instanceof Error ? consoleSafeError(e.cause, depth + 1) : redact(e.cause, depth + 1);
  return out;
}

const consoleSafe = (arg: unknown): unknown =>
  arg instanceof Error
    ? consoleSafeError(arg, 0)
    : typeof arg === 'string'
      ? scrubText(arg)
      : arg !== null && typeof arg === 'object'
        ? redact(arg)
        : arg;

/**
 * Everything written with console.* in this process passes the same redaction as the log: Next.js prints the
 * errors of server actions and pages itself (with a failed query's parameters), and so do libraries. The
 * server (server/serve.ts) calls this first.
 */
export function redactConsole(target: Console = console) {
  const c = target as unknown as Record<string, (...a: unknown[]) => void> & { __ovRedacted?: true };
  if (c.__ovRedacted) return;
  for (const m of ['log', 'info', 'warn', 'error', 'debug', 'trace']) {
    const write = c[m].bind(target);
    c[m] = (...args: unknown[]) => write(...args.map(consoleSafe));
  }
  c.__ovRedacted = true;
}

/** What is being served: set by the API's route wrapper (and the admin's server actions) for everything they call. */
export type LogContext = { requestId?: string; job?: string };
const context = new AsyncLocalStorage<LogContext>();
export const withLogContext = <T>(ctx: LogContext, fn: () => T): T =>
  context.run({ ...context.getStore(), ...ctx }, fn);

function level(): pino.LevelWithSilent {
  try {
    return env().LOG_LEVEL;
  } catch {
    return 'info'; // an invalid environment is reported by whoever reads it first; logging goes on
  }
}

const make = (destination: pino.DestinationStream) =>
  pino(
    {
      level: level(),
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      // The request or job being served, and, when tracing is on, the trace and span it belongs to
      // (docs/operating.md "Logs"): a line can be found from its trace, and the trace from the line.
      mixin: () => {
        const c = context.getStore();
        const t = activeTraceIds();
        return { ...(c?.requestId ? { request_id: c.requestId } : {}), ...(c?.job ? { job: c.job } : {}), ...t };
      },
    },
    destination,
  );

let logger: pino.Logger | undefined;
const base = () => (logger ??= make(pino.destination({ fd: 2, sync: true })));

/** Tests capture the output (or change LOG_LEVEL): the next line is written by a logger built afresh. */
export function resetLogger(destination?: pino.DestinationStream) {
  logger = destination ? make(destination) : undefined;
}

type Fields = Record<string, unknown>;
const write =
  (lvl: 'debug' | 'info' | 'warn' | 'error') =>
  (msg: string, fields: Fields = {}) => {
    const l = base();
    if (!l.isLevelEnabled(lvl)) return;
    l[lvl](redact(fields) as Fields, scrubText(msg));
  };

export const log = { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };

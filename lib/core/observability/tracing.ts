/**
 * Traces (docs/operating.md "Traces"): the helpers the code calls, on @opentelemetry/api alone. Until a tracer
 * provider is started (lib/core/observability/tracing-sdk.ts, only when OTEL_EXPORTER_OTLP_ENDPOINT is set) they cost a
 * flag check: no span is made, no context is kept, no traceparent is written.
 *
 * One trace runs from an API request through the decision job to each webhook attempt: the work written for later
 * (a pipeline_jobs row, a webhook_events row) carries the W3C traceparent of the span that wrote it, and the job
 * that does the work, in whichever runner and process and however much later, continues that trace from the row.
 */
import {
  context,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Attributes,
  type Context,
  type Link,
  type Span,
} from '@opentelemetry/api';

export const TRACER_NAME = 'open-verify';

const g = globalThis as unknown as { __ovTracing?: boolean };

/** True once a tracer provider is registered in this process (the flag is shared by every bundle). */
export const tracingEnabled = () => g.__ovTracing === true;
export const setTracingEnabled = (on: boolean) => {
  g.__ovTracing = on;
};

export const tracer = () => trace.getTracer(TRACER_NAME);

/** The active span's context when it is one to record under (valid and sampled); null otherwise. */
function recordedParent(ctx: Context = context.active()) {
  const sc = trace.getSpanContext(ctx);
  return sc && trace.isSpanContextValid(sc) && (sc.traceFlags & TraceFlags.SAMPLED) !== 0 ? sc : null;
}

/** True when there is a sampled span to hang a child on: database spans are made only inside a trace. */
export const insideTrace = () => tracingEnabled() && recordedParent() !== null;

/** `00-{trace id}-{span id}-{flags}` of the active span, or null (tracing off, or no span). */
export function currentTraceparent(): string | null {
  if (!tracingEnabled()) return null;
  const sc = recordedParent();
  return sc ? `00-${sc.traceId}-${sc.spanId}-${sc.traceFlags.toString(16).padStart(2, '0')}` : null;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** A context whose parent is the span a traceparent names (a remote parent); the root context when it names none. */
export function contextFromTraceparent(traceparent: string | null | undefined): Context {
  const m = traceparent ? TRACEPARENT.exec(traceparent) : null;
  if (!m) return ROOT_CONTEXT;
  const sc = { traceId: m[1], spanId: m[2], traceFlags: parseInt(m[3], 16), isRemote: true };
  return trace.isSpanContextValid(sc) ? trace.setSpanContext(ROOT_CONTEXT, sc) : ROOT_CONTEXT;
}

/** The trace and span ids of the active span, for log lines; null outside a trace. */
export function activeTraceIds(): { trace_id: string; span_id: string } | null {
  if (!tracingEnabled()) return null;
  const sc = recordedParent();
  return sc ? { trace_id: sc.traceId, span_id: sc.spanId } : null;
}

type SpanOptions = { kind?: SpanKind; attributes?: Attributes; links?: Link[] };

/**
 * Marks a span failed by its error's type (its code or class), not its message: a message can carry what a trace
 * must not (a failed query's parameters, a person's name in a validation error). The log line has the detail.
 */
function endWith(span: Span, err: unknown) {
  const code = (err as { code?: unknown })?.code;
  span.setAttribute('error.type', typeof code === 'string' ? code : err instanceof Error ? err.name : 'Error');
  span.setStatus({ code: SpanStatusCode.ERROR });
}

/**
 * Runs `fn` inside a new span, child of the active one (or of `parent`), ended when `fn` settles; a thrown error
 * marks it. Without tracing, or outside a trace unless `parent` is given, `fn` runs as is.
 */
export async function inSpan<T>(
  name: string,
  opts: SpanOptions & { parent?: Context },
  fn: (span: Span | null) => Promise<T>,
): Promise<T> {
  if (!tracingEnabled()) return fn(null);
  const parent = opts.parent ?? context.active();
  if (!opts.parent && !recordedParent(parent)) return fn(null);
  const span = tracer().startSpan(
    name,
    { kind: opts.kind ?? SpanKind.INTERNAL, attributes: opts.attributes, links: opts.links },
    parent,
  );
  try {
    return await context.with(trace.setSpan(parent, span), () => fn(span));
  } catch (e) {
    endWith(span, e);
    throw e;
  } finally {
    span.end();
  }
}

/**
 * The span of a piece of work written earlier (a decision job, a webhook attempt): a child of the span that wrote
 * it (its row's traceparent), so it joins that trace in whatever runner or process takes it, linked to the span
 * active here (an Inngest call) when there is one. Work written outside any trace starts a trace of its own.
 */
export function inJobSpan<T>(
  name: string,
  traceparent: string | null | undefined,
  attributes: Attributes,
  fn: (span: Span | null) => Promise<T>,
): Promise<T> {
  if (!tracingEnabled()) return fn(null);
  const here = recordedParent();
  const links = here ? [{ context: here }] : [];
  return inSpan(name, { kind: SpanKind.CONSUMER, attributes, links, parent: contextFromTraceparent(traceparent) }, fn);
}

/** Runs `fn` outside any trace: a job started from a request's context must not hang its work on that request. */
export const outsideTrace = <T>(fn: () => T): T => (tracingEnabled() ? context.with(ROOT_CONTEXT, fn) : fn());

export { SpanKind, SpanStatusCode };

/**
 * Starts the OpenTelemetry SDK for this process (docs/operating.md "Traces"). Loaded only when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set (server/serve.ts imports it then, before Next.js loads), so a server without
 * it loads none of this and its spans are the API's no-ops.
 *
 * The exporter speaks OTLP over HTTP with JSON (`{endpoint}/v1/traces`) and reads the standard OTEL_EXPORTER_OTLP_*
 * variables (headers, timeout, a traces-only endpoint); the batch processor reads OTEL_BSP_*, the sampler
 * OTEL_TRACES_SAMPLER(_ARG), the resource OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES.
 *
 * Next.js's own spans are not recorded: they name the request by its raw URL (`GET /verify/<capture token>`,
 * `http.target` with the query), which would carry secrets into the traces. Our SERVER span
 * (lib/core/observability/http.ts) stands for the request; Next's tracer is handed spans that only carry the active
 * context through, so the work inside a route is still a child of that SERVER span.
 */
import {
  context,
  INVALID_SPAN_CONTEXT,
  trace,
  type Context,
  type Span,
  type SpanOptions,
  type Tracer,
  type TracerOptions,
  type TracerProvider,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  SimpleSpanProcessor,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { setTracingEnabled } from './tracing';

/** Tracers whose spans are not recorded (see above). */
const UNRECORDED_TRACERS = new Set(['next.js']);

/** A tracer whose spans record nothing and carry their parent's context, so children attach to the parent. */
const passThrough: Tracer = {
  startSpan(_name: string, _opts?: SpanOptions, ctx?: Context): Span {
    return trace.wrapSpanContext(trace.getSpanContext(ctx ?? context.active()) ?? INVALID_SPAN_CONTEXT);
  },
  startActiveSpan(name: string, ...rest: unknown[]) {
    const fn = rest[rest.length - 1] as (span: Span) => unknown;
    const opts = rest.length >= 2 ? (rest[0] as SpanOptions) : undefined;
    const ctx = rest.length >= 3 ? (rest[1] as Context) : context.active();
    const span = passThrough.startSpan(name, opts, ctx);
    return context.with(trace.setSpan(ctx, span), fn, undefined, span);
  },
} as Tracer;

class Filtered implements TracerProvider {
  constructor(private readonly inner: TracerProvider) {}
  getTracer(name: string, version?: string, options?: TracerOptions): Tracer {
    return UNRECORDED_TRACERS.has(name) ? passThrough : this.inner.getTracer(name, version, options);
  }
}

export type Tracing = { flush: () => Promise<void>; shutdown: () => Promise<void> };

/**
 * Registers a tracer provider for the process. `exporter`: where spans go (tests: the SDK's in-memory exporter);
 * by default the OTLP/HTTP exporter, in batches. `serviceName` is overridden by OTEL_SERVICE_NAME.
 */
export async function startTracing(
  opts: { exporter?: SpanExporter; batch?: boolean; serviceName?: string; serviceVersion?: string } = {},
): Promise<Tracing> {
  const exporter = opts.exporter ?? new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter();
  const resource = defaultResource()
    .merge(
      resourceFromAttributes({
        'service.name': opts.serviceName ?? 'open-verify',
        ...(opts.serviceVersion ? { 'service.version': opts.serviceVersion } : {}),
      }),
    )
    .merge(detectResources({ detectors: [envDetector] }));
  const processor = opts.batch === false ? new SimpleSpanProcessor(exporter) : new BatchSpanProcessor(exporter);
  const provider = new BasicTracerProvider({ resource, spanProcessors: [processor] });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(new Filtered(provider));
  setTracingEnabled(true);
  return {
    flush: () => provider.forceFlush(),
    shutdown: async () => {
      setTracingEnabled(false);
      await provider.shutdown();
      trace.disable();
      context.disable();
    },
  };
}

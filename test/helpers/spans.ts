/**
 * Spans as the trace tests read them, whether they came from the SDK's in-memory exporter or over the wire to a
 * real OTLP/HTTP (JSON) receiver, and the checks both make on one trace.
 */
import http from 'node:http';
import type net from 'node:net';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';

export type FlatSpan = {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  /** OTLP's numbering: 1 internal, 2 server, 3 client, 4 producer, 5 consumer */
  kind: number;
  scope: string;
  attributes: Record<string, unknown>;
  links: { traceId: string; spanId: string }[];
  error: boolean;
};

export const KIND = { internal: 1, server: 2, client: 3, producer: 4, consumer: 5 } as const;

/** A span of the in-memory exporter (the API's SpanKind counts from 0: internal 0 … consumer 4). */
export function fromReadable(s: ReadableSpan): FlatSpan {
  const sc = s.spanContext();
  return {
    traceId: sc.traceId,
    spanId: sc.spanId,
    parentSpanId: s.parentSpanContext?.spanId ?? null,
    name: s.name,
    kind: s.kind + 1,
    scope: s.instrumentationScope.name,
    attributes: { ...s.attributes },
    links: s.links.map((l) => ({ traceId: l.context.traceId, spanId: l.context.spanId })),
    error: s.status.code === 2,
  };
}

type OtlpValue = {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values: OtlpValue[] };
};
type OtlpSpan = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: OtlpValue }[];
  links?: { traceId: string; spanId: string }[];
  status?: { code?: number };
};
type OtlpBody = {
  resourceSpans: {
    resource?: { attributes?: { key: string; value: OtlpValue }[] };
    scopeSpans: { scope?: { name?: string }; spans: OtlpSpan[] }[];
  }[];
};

const value = (v: OtlpValue): unknown =>
  v.stringValue ??
  (v.intValue !== undefined ? Number(v.intValue) : (v.doubleValue ?? v.boolValue ?? v.arrayValue?.values.map(value)));

/** The spans of one OTLP/JSON export request, and its resources' attributes. */
export function fromOtlpJson(body: OtlpBody): { spans: FlatSpan[]; resources: Record<string, unknown>[] } {
  const spans: FlatSpan[] = [];
  const resources: Record<string, unknown>[] = [];
  for (const rs of body.resourceSpans ?? []) {
    resources.push(Object.fromEntries((rs.resource?.attributes ?? []).map((a) => [a.key, value(a.value)])));
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        spans.push({
          traceId: s.traceId,
          spanId: s.spanId,
          parentSpanId: s.parentSpanId || null,
          name: s.name,
          kind: s.kind,
          scope: ss.scope?.name ?? '',
          attributes: Object.fromEntries((s.attributes ?? []).map((a) => [a.key, value(a.value)])),
          links: (s.links ?? []).map((l) => ({ traceId: l.traceId, spanId: l.spanId })),
          error: s.status?.code === 2,
        });
      }
    }
  }
  return { spans, resources };
}

/** A real OTLP/HTTP receiver: collects what exporters POST to /v1/traces (JSON), answers as a collector does. */
export async function startOtlpReceiver() {
  const spans: FlatSpan[] = [];
  const resources: Record<string, unknown>[] = [];
  const requests: { path: string; contentType: string }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({ path: req.url ?? '', contentType: String(req.headers['content-type'] ?? '') });
      if (
        req.method !== 'POST' ||
        req.url !== '/v1/traces' ||
        !String(req.headers['content-type']).startsWith('application/json')
      ) {
        res.writeHead(415).end();
        return;
      }
      const got = fromOtlpJson(JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpBody);
      spans.push(...got.spans);
      resources.push(...got.resources);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    resources,
    requests,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** The chain of a span's ancestors within its trace, nearest first (stops where a parent is missing). */
export function ancestors(spans: FlatSpan[], span: FlatSpan): FlatSpan[] {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const out: FlatSpan[] = [];
  for (
    let p = span.parentSpanId ? byId.get(span.parentSpanId) : undefined;
    p;
    p = p.parentSpanId ? byId.get(p.parentSpanId) : undefined
  )
    out.push(p);
  return out;
}

/** Every string in every span (names and attribute values), for "this never reaches a trace" checks. */
export const spanText = (spans: FlatSpan[]) => JSON.stringify(spans.map((s) => [s.name, s.attributes]));

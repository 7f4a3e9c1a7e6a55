/** Calls route handlers in-process with real Requests, signed as an integrator signs them. */
import { signJsonRequest } from '@/lib/domain/auth/sign';
import { checkContract } from './contract';

/** A parsed JSON response body in tests: its shape is what the assertions check. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type JsonBody = any;

type Handler = (req: Request, ctx: { params: Promise<Record<string, string | string[]>> }) => Promise<Response>;

export type CallOptions = {
  method?: string;
  path: string;
  body?: string | Uint8Array | object;
  headers?: Record<string, string>;
  apiKey?: string;
  /** Signs with this secret; `signature` overrides the header value outright. */
  secret?: string;
  signature?: string | null;
  params?: Record<string, string | string[]>;
};

export async function call(handler: Handler, o: CallOptions) {
  const method = o.method ?? 'GET';
  const body =
    o.body === undefined
      ? undefined
      : typeof o.body === 'string' || o.body instanceof Uint8Array
        ? o.body
        : JSON.stringify(o.body);
  const headers: Record<string, string> = {
    ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    ...o.headers,
  };
  if (o.apiKey) headers['x-api-key'] = o.apiKey;
  if (o.signature !== undefined) {
    if (o.signature !== null) headers['x-hmac-signature'] = o.signature;
  } else if (o.secret) {
    headers['x-hmac-signature'] = signJsonRequest(o.secret, method, o.path, body ?? '');
  }
  const req = new Request('http://verify.test' + o.path, { method, headers, body: body as BodyInit | undefined });
  const res = await handler(req, { params: Promise.resolve(o.params ?? {}) });
  const text = await res.text();
  let json: JsonBody;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  // Every answer of a /v1 operation is checked against its contract (the OpenAPI document's source).
  checkContract(handler, res.status, json);
  return { status: res.status, headers: res.headers, json, text };
}

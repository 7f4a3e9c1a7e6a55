/**
 * The one wrapper every /v1 route is declared with: it names the auth mode and zod schemas, then calls
 * one lib/ operation. It reads the body (with its limit), authenticates, applies the rate limit,
 * validates, and turns whatever is thrown into the error envelope. Routes have no try/catch.
 */
import type { z } from 'zod';
import { getDb, type Db } from '@/db/client';
import { newId } from '../ids';
import { withLogContext } from '../log';
import { authenticate, type AuthResult } from '../auth/authenticate';
import type { VerificationRow } from '@/db/schema';
import { authenticateCapture, captureRateKey, CAPTURE_RATE_LIMIT_PER_MINUTE } from '../capture/auth';
import { canonicalJson, canonicalMultipart } from '../auth/canonical';
import { LIMITS } from '../media/thresholds';
import { rateLimitError, takeRateLimit, type RateLimitState } from '../ratelimit';
import { DomainError, parseOrThrow } from '../errors';
import { errorResponse, json } from './respond';
import { isJsonContentType, JSON_BODY_LIMIT, parseJsonBody, readBodyLimited } from './body';

export type HandlerResult = { status?: number; data: unknown; headers?: Record<string, string> };

export type ApiContext<P, B> = {
  db: Db;
  req: Request;
  requestId: string;
  auth: AuthResult;
  params: P;
  body: B;
  rawBody: Uint8Array;
  /** Capture endpoints: the verification the link's token opens (read once, by the authentication). */
  verification?: VerificationRow;
  /** Multipart endpoints: the non-file fields and the files, by field name. */
  form?: { fields: [string, string][]; files: { field: string; bytes: Uint8Array; type: string }[] };
};

type RouteOptions<PS extends z.ZodType, BS extends z.ZodType> = {
  /**
   * `apiKey`: signed; `apiKeyUnsignedAllowed`: may be unsigned when the workspace does not enforce it;
   * `captureToken`: the hosted capture page, by the `token` path parameter (rate-limited per link).
   */
  auth: 'apiKey' | 'apiKeyUnsignedAllowed' | 'captureToken';
  params?: PS;
  /** JSON body schema; without it the endpoint takes no body. */
  body?: BS;
  /** A multipart/form-data endpoint; `body` then validates the non-file fields. */
  multipart?: boolean;
  /** A params failure is this error (e.g. a malformed id is simply not found). */
  paramsError?: () => DomainError;
  handler: (ctx: ApiContext<z.infer<PS>, z.infer<BS>>) => Promise<HandlerResult>;
};

type NextCtx = { params: Promise<Record<string, string | string[]>> };

export function pathWithQuery(req: Request): string {
  const u = new URL(req.url);
  return u.pathname + u.search;
}

export function apiRoute<PS extends z.ZodType = z.ZodType, BS extends z.ZodType = z.ZodType>(
  opts: RouteOptions<PS, BS>,
) {
  return (req: Request, nextCtx?: NextCtx): Promise<Response> => {
    const requestId = newId('req');
    // Every log line written while this request is served carries its id (the same as X-Request-Id).
    return withLogContext({ requestId }, () => serve(req, nextCtx, requestId));
  };

  async function serve(req: Request, nextCtx: NextCtx | undefined, requestId: string): Promise<Response> {
    let headers: Record<string, string> = { 'x-request-id': requestId };
    try {
      const db = getDb();
      let form: ApiContext<unknown, unknown>['form'];
      if (opts.multipart && !/^multipart\/form-data\s*;/i.test(req.headers.get('content-type') ?? '')) {
        throw new DomainError('UNSUPPORTED_MEDIA_TYPE', 'Send this request as multipart/form-data.');
      }
      // Multipart: the file limit plus room for the form's own bytes, refused while streaming.
      const rawBody = await readBodyLimited(req, opts.multipart ? LIMITS.maxFileBytes + 256 * 1024 : JSON_BODY_LIMIT);
      if (opts.multipart) form = await parseMultipart(req, rawBody);
      const rawParams = nextCtx ? await nextCtx.params : {};
      const limitBy = async (key: string, perMinute: number, scope?: string) => {
        const limit = await takeRateLimit(db, key, perMinute);
        headers = { ...headers, ...rateLimitHeaders(limit) };
        if (!limit.allowed) throw rateLimitError(limit, scope);
      };
      let auth: AuthResult;
      let verification: VerificationRow | undefined;
      if (opts.auth === 'captureToken') {
        // The link first (an unknown token is 404 and leaves nothing behind), then its own rate limit.
        ({ auth, verification } = await authenticateCapture(db, String(rawParams.token ?? '')));
        await limitBy(captureRateKey(verification.id), CAPTURE_RATE_LIMIT_PER_MINUTE, 'this verification link');
      } else {
        auth = await authenticate(db, {
          apiKey: req.headers.get('x-api-key'),
          signature: req.headers.get('x-hmac-signature'),
          canonical: form
            ? [canonicalMultipart(req.method, pathWithQuery(req), form.fields, form.files.map((f) => f.bytes))]
            : canonicalJson(req.method, pathWithQuery(req), rawBody),
          allowUnsigned: opts.auth === 'apiKeyUnsignedAllowed',
        });
        await limitBy(`ws:${auth.workspace.id}`, auth.workspace.rateLimitPerMinute);
      }

      let params: z.infer<PS> = rawParams as z.infer<PS>;
      if (opts.params) {
        const r = opts.params.safeParse(rawParams);
        if (!r.success) throw opts.paramsError?.() ?? parseOrThrow(opts.params, rawParams);
        params = r.data;
      }

      let body: z.infer<BS> = undefined as z.infer<BS>;
      if (form) {
        body = parseOrThrow(opts.body!, Object.fromEntries(form.fields));
      } else if (opts.body) {
        let input: unknown = {};
        if (rawBody.byteLength > 0) {
          if (!isJsonContentType(req.headers.get('content-type'))) {
            throw new DomainError('UNSUPPORTED_MEDIA_TYPE', 'Send the request body as application/json.');
          }
          input = parseJsonBody(rawBody);
        }
        body = parseOrThrow(opts.body, input);
      } else if (rawBody.byteLength > 0) {
        throw new DomainError('VALIDATION_ERROR', 'This endpoint takes no request body.', {
          fields: { body: ['Must be empty.'] },
        });
      }

      const result = await opts.handler({ db, req, requestId, auth, params, body, rawBody, form, verification });
      return json(result.status ?? 200, { data: result.data }, { ...headers, ...result.headers });
    } catch (err) {
      return errorResponse(err, requestId, headers);
    }
  }
}

/** Parses a buffered multipart body; a field given twice is refused (the signature would be ambiguous). */
async function parseMultipart(req: Request, raw: Uint8Array): Promise<NonNullable<ApiContext<unknown, unknown>['form']>> {
  let data: FormData;
  try {
    data = await new Response(raw as BodyInit, { headers: { 'content-type': req.headers.get('content-type')! } }).formData();
  } catch {
    throw new DomainError('VALIDATION_ERROR', 'The multipart body could not be parsed.', { fields: { body: ['Malformed multipart/form-data.'] } });
  }
  const fields: [string, string][] = [];
  const files: { field: string; bytes: Uint8Array; type: string }[] = [];
  const seen = new Set<string>();
  for (const [name, value] of data.entries()) {
    if (seen.has(name)) throw new DomainError('VALIDATION_ERROR', `The field ${name} is given more than once.`, { fields: { [name]: ['Given more than once.'] } });
    seen.add(name);
    if (typeof value === 'string') fields.push([name, value]);
    else files.push({ field: name, bytes: new Uint8Array(await value.arrayBuffer()), type: value.type });
  }
  return { fields, files };
}

/** decisions.md: every response carries the rate limit's state. */
function rateLimitHeaders(s: RateLimitState): Record<string, string> {
  return {
    'x-ratelimit-limit': String(s.limit),
    'x-ratelimit-remaining': String(s.remaining),
    'x-ratelimit-reset': String(s.resetAt),
  };
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Handlers for the methods a path does not support: 405 in the error envelope, with Allow. */
export function methodNotAllowed(...allowed: Method[]) {
  const handler = async () => {
    const requestId = newId('req');
    return errorResponse(
      new DomainError('METHOD_NOT_ALLOWED', `Method not allowed. Allowed: ${allowed.join(', ')}.`, { allowed }),
      requestId,
      { 'x-request-id': requestId, allow: allowed.join(', ') },
    );
  };
  return { GET: handler, POST: handler, PUT: handler, PATCH: handler, DELETE: handler };
}

/** Any path under /v1 that no route serves. */
export async function notFoundRoute(): Promise<Response> {
  const requestId = newId('req');
  return errorResponse(new DomainError('NOT_FOUND', 'No such endpoint.'), requestId, { 'x-request-id': requestId });
}

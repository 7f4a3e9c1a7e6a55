/**
 * The one wrapper every /v1 route is declared with: it names the auth mode and zod schemas, then calls
 * one lib/ operation. It reads the body (with its limit), authenticates, applies the rate limit,
 * validates, and turns whatever is thrown into the error envelope. Routes have no try/catch.
 */
import type { z } from 'zod';
import { getDb, type Db } from '@/db/client';
import { newId } from '../ids';
import { authenticate, type AuthResult } from '../auth/authenticate';
import { canonicalJson } from '../auth/canonical';
import { rateLimitError, rateLimitHeaders, takeRateLimit } from '../ratelimit';
import { ApiError } from './errors';
import { errorResponse, json } from './respond';
import { isJsonContentType, JSON_BODY_LIMIT, parseJsonBody, readBodyLimited } from './body';
import { parseOrThrow } from './zod';

export type HandlerResult = { status?: number; data: unknown; headers?: Record<string, string> };

export type ApiContext<P, B> = {
  db: Db;
  req: Request;
  requestId: string;
  auth: AuthResult;
  params: P;
  body: B;
  rawBody: Uint8Array;
};

type RouteOptions<PS extends z.ZodType, BS extends z.ZodType> = {
  /** `apiKey`: signed; `apiKeyUnsignedAllowed`: may be unsigned when the workspace does not enforce it. */
  auth: 'apiKey' | 'apiKeyUnsignedAllowed';
  params?: PS;
  /** JSON body schema; without it the endpoint takes no body. */
  body?: BS;
  /** A params failure is this error (e.g. a malformed id is simply not found). */
  paramsError?: () => ApiError;
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
  return async (req: Request, nextCtx?: NextCtx): Promise<Response> => {
    const requestId = newId('req');
    let headers: Record<string, string> = { 'x-request-id': requestId };
    try {
      const db = getDb();
      const rawBody = await readBodyLimited(req, JSON_BODY_LIMIT);
      const auth = await authenticate(db, {
        apiKey: req.headers.get('x-api-key'),
        signature: req.headers.get('x-hmac-signature'),
        canonical: canonicalJson(req.method, pathWithQuery(req), rawBody),
        allowUnsigned: opts.auth === 'apiKeyUnsignedAllowed',
      });

      const limit = await takeRateLimit(db, `ws:${auth.workspace.id}`, auth.workspace.rateLimitPerMinute);
      headers = { ...headers, ...rateLimitHeaders(limit) };
      if (!limit.allowed) throw rateLimitError(limit);

      const rawParams = nextCtx ? await nextCtx.params : {};
      let params: z.infer<PS> = rawParams as z.infer<PS>;
      if (opts.params) {
        const r = opts.params.safeParse(rawParams);
        if (!r.success) throw opts.paramsError?.() ?? parseOrThrow(opts.params, rawParams);
        params = r.data;
      }

      let body: z.infer<BS> = undefined as z.infer<BS>;
      if (opts.body) {
        let input: unknown = {};
        if (rawBody.byteLength > 0) {
          if (!isJsonContentType(req.headers.get('content-type'))) {
            throw new ApiError('UNSUPPORTED_MEDIA_TYPE', 'Send the request body as application/json.');
          }
          input = parseJsonBody(rawBody);
        }
        body = parseOrThrow(opts.body, input);
      } else if (rawBody.byteLength > 0) {
        throw new ApiError('VALIDATION_ERROR', 'This endpoint takes no request body.', {
          fields: { body: ['Must be empty.'] },
        });
      }

      const result = await opts.handler({ db, req, requestId, auth, params, body, rawBody });
      return json(result.status ?? 200, { data: result.data }, { ...headers, ...result.headers });
    } catch (err) {
      return errorResponse(err, requestId, headers);
    }
  };
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Handlers for the methods a path does not support: 405 in the error envelope, with Allow. */
export function methodNotAllowed(...allowed: Method[]) {
  const handler = async () => {
    const requestId = newId('req');
    return errorResponse(
      new ApiError('METHOD_NOT_ALLOWED', `Method not allowed. Allowed: ${allowed.join(', ')}.`, { allowed }),
      requestId,
      { 'x-request-id': requestId, allow: allowed.join(', ') },
    );
  };
  return { GET: handler, POST: handler, PUT: handler, PATCH: handler, DELETE: handler };
}

/** Any path under /v1 that no route serves. */
export async function notFoundRoute(): Promise<Response> {
  const requestId = newId('req');
  return errorResponse(new ApiError('NOT_FOUND', 'No such endpoint.'), requestId, { 'x-request-id': requestId });
}

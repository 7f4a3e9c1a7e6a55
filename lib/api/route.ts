/**
 * The one wrapper every /v1 and capture route is declared with: it names the auth mode and zod schemas,
 * then calls one lib/ operation. Order matters, and is the point of it:
 *   1. who is asking, from the headers alone: the workspace X-API-Key names, the signature header's form and
 *      the request timestamp where there is one (or the capture link's token); the failed signatures of that
 *      key and client address; for an upload, a place among the uploads in progress; then that workspace's
 *      (or link's) rate limit. An unknown key, a missing signature, a stale timestamp, a key and address whose
 *      signatures keep failing, too many uploads at once or a workspace over its limit is answered without
 *      reading a byte of the body;
 *   2. the body, streamed with its limit enforced as it arrives (multipart parsed as it streams, with its
 *      part and size limits, each file hashed on the way into a temporary file, never whole in memory);
 *   3. the signature over the canonical request (the body is needed for it; a failure spends its request of
 *      the rate limit and is counted), then params and body validation, then the handler. Whatever is thrown
 *      becomes the error envelope; the temporary files and the upload's place are given back. Routes have no
 *      try/catch.
 */
import type { z } from 'zod';
import { getDb, type Db } from '@/lib/db/client';
import { newId } from '../core/ids';
import { withLogContext } from '../core/log';
import {
  identify,
  REQUEST_TIMESTAMP_HEADER,
  verifySignature,
  type AuthResult,
  type PendingSignature,
} from '../domain/auth/authenticate';
import type { VerificationRow } from '@/lib/db/schema';
import { authenticateCapture, captureRateKey, CAPTURE_RATE_LIMIT_PER_MINUTE } from '../domain/capture/auth';
import { canonicalJson, canonicalMultipartFromHashes, requestTarget } from '../domain/auth/canonical';
import { LIMITS } from '../domain/media/thresholds';
import { peekRateLimit, rateLimitError, takeRateLimit, type RateLimitState } from '../domain/ratelimit';
import { DomainError, parseOrThrow, validationError } from '../core/errors';
import { assertStorableText } from '../core/input-text';
import { errorAnswer, errorResponse, JSON_HEADERS, toResponse, type Answer } from './respond';
import {
  discardRefusedBody,
  isJsonContentType,
  JSON_BODY_LIMIT,
  parseJsonBody,
  readBodyLimited,
  type ApiRequest,
} from './body';
import { stringifyJson } from '../core/json-raw';
import { clientAddressOf } from '../domain/auth/client-address';
import { multipartBoundary, readMultipart, type ParsedForm } from './multipart';
import {
  countSignatureFailure,
  releaseSignatureAttempt,
  reserveSignatureAttempt,
  tooManyFailures,
  type CountedFailure,
} from './signature-failures';
import { notFoundInMode, signatureMismatch } from './teaching-errors';
import { enterServerSlot, enterUpload, UPLOAD_BOUNDS, type UploadTicket } from './uploads-in-progress';
import { notePressure } from '../domain/media/pressure';

/** A place among the uploads in progress; a refusal marks the workspace as pressing the analysis (lib/domain/media/pressure.ts). */
function enterUploadOf(
  workspaceId: string,
  key: string,
  bound: number,
  scope: 'workspace' | 'verification',
  total?: false,
): UploadTicket {
  try {
    return enterUpload(key, bound, scope, total);
  } catch (e) {
    notePressure(workspaceId);
    throw e;
  }
}

/** One of the server's places, for an upload whose signature is proven (uploads-in-progress.ts). */
function enterUploadServerSlot(workspaceId: string): UploadTicket {
  try {
    return enterServerSlot();
  } catch (e) {
    notePressure(workspaceId);
    throw e;
  }
}

export type HandlerResult = { status?: number; data: unknown; headers?: Record<string, string> };

export type ApiContext<P, B, Q = unknown> = {
  db: Db;
  req: ApiRequest;
  requestId: string;
  auth: AuthResult;
  params: P;
  body: B;
  /** The query string's parameters, validated by the route's `query` schema (undefined without one). */
  query: Q;
  rawBody: Uint8Array;
  /** Capture endpoints: the verification the link's token opens (read once, by the authentication). */
  verification?: VerificationRow;
  /** Multipart endpoints: the non-file fields and the files, by field name. */
  form?: ParsedForm;
};

export type RouteOptions<PS extends z.ZodType, BS extends z.ZodType, QS extends z.ZodType = z.ZodType> = {
  /** The /v1 operation this route serves (lib/api/operations.ts): tests check its answers against that contract. */
  operationId?: string;
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
  /**
   * The query string's schema (each parameter once, as a string; read from the request-target as sent). Without
   * one, a query is ignored (it is still signed).
   */
  query?: QS;
  /** A params failure is this error (e.g. a malformed id is simply not found). */
  paramsError?: () => DomainError;
  handler: (ctx: ApiContext<z.infer<PS>, z.infer<BS>, z.infer<QS>>) => Promise<HandlerResult>;
};

type NextCtx = { params: Promise<Record<string, string | string[]>> };

/** The media endpoints' form: type, side, document_type and one file, with room for a few stray parts. */
export const MEDIA_FORM_LIMITS = {
  maxParts: 8,
  maxFieldBytes: 1024,
  maxFileBytes: LIMITS.maxFileBytes,
  maxHeaderBytes: 2048,
};
/** The whole multipart body: the file plus the form's own bytes. */
export const MULTIPART_BODY_LIMIT = LIMITS.maxFileBytes + 64 * 1024;

/** The path and query of the request exactly as sent (canonical.ts). */

/**
 * An `apiRoute` handler's answer without the web Request and Response around it: the custom server calls it with
 * its light request over node's and writes the answer itself (lib/api/node-dispatch.ts); Next.js calls the route
 * itself. Both run the same `serve` below, so they cannot answer differently.
 */
export const API_ANSWER = Symbol.for('open-verify.api-answer');
export type ApiAnswerer = (req: ApiRequest, params: Record<string, string | string[]>) => Promise<Answer>;

export function apiRoute<
  PS extends z.ZodType = z.ZodType,
  BS extends z.ZodType = z.ZodType,
  QS extends z.ZodType = z.ZodType,
>(opts: RouteOptions<PS, BS, QS>) {
  const answer: ApiAnswerer = (req, params) => {
    const requestId = newId('req');
    // Every log line written while this request is served carries its id (the same as X-Request-Id).
    return withLogContext({ requestId }, () => serve(req, params, requestId));
  };
  const route = async (req: Request, nextCtx?: NextCtx): Promise<Response> =>
    toResponse(await answer(req, nextCtx ? await nextCtx.params : {}));
  return Object.assign(route, { operationId: opts.operationId, [API_ANSWER]: answer });

  async function serve(
    req: ApiRequest,
    rawParams: Record<string, string | string[]>,
    requestId: string,
  ): Promise<Answer> {
    // One object for the whole request: the answer's headers, the rate limit's added as it is taken.
    const headers: Record<string, string> = { ...JSON_HEADERS, 'x-request-id': requestId };
    let ticket: UploadTicket | undefined;
    let serverTicket: UploadTicket | undefined;
    let form: ParsedForm | undefined;
    // An upload's failed signature, counted before its body: kept unless the signature is proven or the upload is
    // refused before its body (signature-failures.ts).
    let reservation: CountedFailure | undefined;
    let keepCount = false; // the upload's counted failure stays (its body was begun)
    try {
      const db = getDb();
      // docs/api.md: a GET carries no body. One sent anyway (chunked, or with a length) is refused, not ignored.
      if ((req.method === 'GET' || req.method === 'HEAD') && mayHaveBody(req)) {
        throw new DomainError('BAD_REQUEST', 'A GET request carries no body.');
      }

      // 1. Who is asking, and may they be heard now: headers only, the body untouched.
      let auth: AuthResult | undefined;
      let pending: PendingSignature | undefined;
      let verification: VerificationRow | undefined;
      let rawBody: Uint8Array | undefined;
      const address = clientAddressOf(req.headers) ?? 'unknown';
      if (opts.auth === 'captureToken') {
        // The link first (an unknown token is 404 and leaves nothing behind), then its own bounds and rate limit.
        ({ auth, verification } = await authenticateCapture(db, String(rawParams.token ?? '')));
        if (opts.multipart)
          ticket = enterUploadOf(
            verification.workspaceId,
            `link:${verification.id}`,
            UPLOAD_BOUNDS.perCaptureLink,
            'verification',
          );
        await limitBy(
          db,
          headers,
          captureRateKey(verification.id),
          CAPTURE_RATE_LIMIT_PER_MINUTE,
          'this verification link',
        );
      } else {
        const who = await identify(db, {
          apiKey: req.headers.get('x-api-key'),
          signature: req.headers.get('x-hmac-signature'),
          timestamp: req.headers.get(REQUEST_TIMESTAMP_HEADER),
          allowUnsigned: opts.auth === 'apiKeyUnsignedAllowed',
        });
        if ('auth' in who) auth = who.auth;
        else pending = who.pending;
        const workspace = auth?.workspace ?? pending!.workspace;
        if (opts.multipart)
          ticket = enterUploadOf(
            workspace.id,
            `ws:${workspace.id}`,
            UPLOAD_BOUNDS.perApiKey,
            'workspace',
            pending ? false : undefined,
          );
        // A request still to prove its signature spends nothing of the workspace's limit before it does (step 3);
        // an upload's failure is counted now, before its body, and given back once the signature is proven.
        if (pending && opts.multipart) reservation = await reserveSignatureAttempt(db, workspace.apiKey, address);
        if (!pending) await limitBy(db, headers, `ws:${workspace.id}`, workspace.rateLimitPerMinute);
        // A body to read first: a workspace already over its limit is refused before it, unread.
        else if (req.method !== 'GET' && req.method !== 'HEAD')
          await limitBy(db, headers, `ws:${workspace.id}`, workspace.rateLimitPerMinute, undefined, true);
      }

      // 2. The body, with its limits enforced while it streams (files spooled to disk, hashed on the way).
      if (opts.multipart) {
        const contentType = req.headers.get('content-type');
        if (!/^\s*multipart\/form-data\s*(;|$)/i.test(contentType ?? '')) {
          throw new DomainError('UNSUPPORTED_MEDIA_TYPE', 'Send this request as multipart/form-data.');
        }
        if (!multipartBoundary(contentType)) {
          throw new DomainError('VALIDATION_ERROR', 'The multipart body could not be parsed.', {
            fields: { body: ['The Content-Type has no valid boundary parameter.'] },
          });
        }
        keepCount = true;
        form = await readMultipart(req, contentType!, MEDIA_FORM_LIMITS, MULTIPART_BODY_LIMIT);
      } else if (!rawBody) {
        try {
          rawBody = await readBodyLimited(req, JSON_BODY_LIMIT);
        } catch (e) {
          // A body abandoned or cut off as too slow, its signature unproven: counted as a failed signature.
          if (pending && e instanceof DomainError && (e.code === 'REQUEST_TIMEOUT' || e.code === 'BAD_REQUEST')) {
            await countSignatureFailure(db, pending.workspace.apiKey, address);
          }
          throw e;
        }
      }
      rawBody ??= new Uint8Array(0);

      // 3. The signature over the canonical request. A failure is counted against its key and address (never
      // against the workspace's rate limit, which only a proven signature spends).
      if (pending && !auth) {
        const target = requestTarget(req);
        try {
          auth = verifySignature(
            pending,
            form
              ? [
                  canonicalMultipartFromHashes(
                    req.method,
                    target,
                    form.fields,
                    form.files.map((f) => f.sha256),
                  ),
                ]
              : canonicalJson(req.method, target, rawBody),
          );
        } catch (e) {
          if (e instanceof DomainError && e.code === 'INVALID_SIGNATURE') {
            const counted = reservation ?? (await countSignatureFailure(db, pending.workspace.apiKey, address));
            reservation = undefined; // counted: kept
            if (counted.over) throw tooManyFailures(counted.wait);
            // What the server signed, to compare with what the caller signed (teaching-errors.ts).
            const parts = form
              ? { fields: form.fields, fileHashes: form.files.map((f) => f.sha256) }
              : { body: rawBody };
            throw signatureMismatch({ method: req.method, target, timestamp: pending.timestamp, ...parts });
          }
          throw e;
        }
        if (reservation) {
          const proven = reservation;
          reservation = undefined;
          await releaseSignatureAttempt(db, proven);
        }
        await limitBy(db, headers, `ws:${pending.workspace.id}`, pending.workspace.rateLimitPerMinute);
        if (opts.multipart) serverTicket = enterUploadServerSlot(pending.workspace.id);
      }

      let params: z.infer<PS> = rawParams as z.infer<PS>;
      if (opts.params) {
        const r = opts.params.safeParse(rawParams);
        if (!r.success) throw opts.paramsError?.() ?? parseOrThrow(opts.params, rawParams);
        params = r.data;
      }

      const query: z.infer<QS> = opts.query
        ? parseOrThrow(opts.query, queryParameters(requestTarget(req)))
        : (undefined as z.infer<QS>);

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

      const result = await opts
        .handler({ db, req, requestId, auth: auth!, params, body, query, rawBody, form, verification })
        .catch((e: unknown) => Promise.reject(notFoundInMode(e, auth)));
      const text = stringifyJson({ data: result.data });
      if (result.headers) Object.assign(headers, result.headers);
      return { status: result.status ?? 200, headers, text };
    } catch (err) {
      // An upload refused for what its body says (malformed, too large, the wrong type), its signature unproven, was
      // sent whole and at pace: no failed signature. Refused for its time or cut short, it stays counted.
      if (reservation && err instanceof DomainError && REFUSED_FOR_CONTENT.has(err.code)) keepCount = false;
      return errorAnswer(err, requestId, headers);
    } finally {
      await form?.dispose();
      serverTicket?.release();
      ticket?.release();
      // Refused before its body, or for its content: no failure. Otherwise (a wrong signature, a body abandoned or
      // too slow) the upload's count stays.
      if (reservation && !keepCount) await releaseSignatureAttempt(getDb(), reservation).catch(() => {});
      // The answer is ready: what the client still sends of a body refused mid-way is read and dropped now.
      discardRefusedBody(req);
    }
  }
}

/** The refusals of an upload's body for what it contains, which give its counted failure back (serve(), above). */
const REFUSED_FOR_CONTENT: ReadonlySet<string> = new Set([
  'VALIDATION_ERROR',
  'UNSUPPORTED_MEDIA_TYPE',
  'PAYLOAD_TOO_LARGE',
]);

/** Whether the request says it has a body (a length above 0, or chunked). */
function mayHaveBody(req: ApiRequest): boolean {
  return req.headers.get('transfer-encoding') !== null || Number(req.headers.get('content-length') ?? 0) > 0;
}

/** The query of a request-target as an object of strings; a parameter given twice is VALIDATION_ERROR. */
export function queryParameters(target: string): Record<string, string> {
  const q = target.indexOf('?');
  const out: Record<string, string> = Object.create(null);
  const twice = new Set<string>();
  for (const [k, v] of new URLSearchParams(q < 0 ? '' : target.slice(q + 1))) {
    if (k in out) twice.add(k);
    out[k] = v;
  }
  if (twice.size) throw validationError(Object.fromEntries([...twice].map((k) => [k, ['Given more than once.']])));
  assertStorableText(out, 'query');
  return out;
}

/**
 * Takes one request of `key`'s rate limit (or, with `peek`, only looks whether one is left); docs/api.md: every
 * response carries its state (set on `headers`).
 */
async function limitBy(
  db: Db,
  headers: Record<string, string>,
  key: string,
  perMinute: number,
  scope?: string,
  peek = false,
) {
  const limit: RateLimitState = await (peek ? peekRateLimit : takeRateLimit)(db, key, perMinute, Date.now());
  headers['x-ratelimit-limit'] = String(limit.limit);
  headers['x-ratelimit-remaining'] = String(limit.remaining);
  headers['x-ratelimit-reset'] = String(limit.resetAt);
  if (!limit.allowed) throw rateLimitError(limit, scope);
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** On a `methodNotAllowed` handler: the methods its path does support (the custom server's 405 for other methods). */
export const ALLOWED_METHODS = Symbol.for('open-verify.allowed-methods');

/** Handlers for the methods a path does not support: 405 in the error envelope, with Allow. */
export function methodNotAllowed(...allowed: Method[]) {
  const handler = Object.assign(
    async () => {
      const requestId = newId('req');
      return errorResponse(
        new DomainError('METHOD_NOT_ALLOWED', `Method not allowed. Allowed: ${allowed.join(', ')}.`, { allowed }),
        requestId,
        { 'x-request-id': requestId, allow: allowed.join(', ') },
      );
    },
    { [ALLOWED_METHODS]: allowed },
  );
  return { GET: handler, POST: handler, PUT: handler, PATCH: handler, DELETE: handler };
}

/** Any path under /v1 that no route serves. */
export async function notFoundRoute(): Promise<Response> {
  const requestId = newId('req');
  return errorResponse(new DomainError('NOT_FOUND', 'No such endpoint.'), requestId, { 'x-request-id': requestId });
}

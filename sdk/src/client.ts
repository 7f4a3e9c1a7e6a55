/**
 * The Open Verify client: every request signed (HMAC-SHA256 over the canonical request, docs/api.md), typed
 * answers and errors, network failures retried (creates carry an Idempotency-Key, so a retry never makes a
 * second verification). fetch and WebCrypto only: Node 20+, Deno, Bun, edge runtimes.
 */
import { apiError, ConflictError, ConsentIntegrityError, NetworkError, TimeoutError } from './errors.js';
import { canonicalJson, canonicalMultipart, hmacHex, rfc3986, sha256Hex, withTimestamp } from './signing.js';
import type {
  ConsentAccepted,
  ConsentVersion,
  CreateVerificationInput,
  Erasure,
  ListVerificationsQuery,
  Media,
  Submitted,
  Verification,
  VerificationCreated,
  WalletRequest,
  WalletRequestInput,
  WalletResponseInput,
  VerificationList,
  VerificationStatus,
} from './types.js';

export type OpenVerifyOptions = {
  /** e.g. https://verify.example.com (no trailing path needed) */
  baseUrl: string;
  /** The workspace's public key, pk_… */
  apiKey: string;
  /** A secret key, sk_test_… or sk_live_…: its prefix sets the mode */
  secretKey: string;
  /** Tries after the first for a request that got no answer (or a 503 with Retry-After). Default 2. */
  retries?: number;
  /** Per attempt. Default 30 s (uploads are analysed while you wait: allow for it). */
  timeoutMs?: number;
  /** Longest Retry-After of a 503 worth waiting for before giving up. Default 10 s. */
  maxRetryAfterSeconds?: number;
  /**
   * Send X-Request-Timestamp (Unix seconds, signed with the request) with every request, so a captured request
   * cannot be replayed after five minutes. Required by workspaces with `require_request_timestamp`; harmless
   * elsewhere. Default false. Needs a clock within a few minutes of the service's.
   */
  requestTimestamp?: boolean;
  /** The clock the timestamps are read from (milliseconds since 1970). Default Date.now. */
  now?: () => number;
  fetch?: typeof fetch;
};

/** Which operation of GET /v1/openapi.json each method calls. */
export const OPERATIONS = {
  createVerification: 'POST /v1/verifications',
  listVerifications: 'GET /v1/verifications',
  getVerification: 'GET /v1/verifications/{id}',
  getActiveConsent: 'GET /v1/consent',
  acceptConsent: 'POST /v1/verifications/{id}/consent',
  uploadMedia: 'POST /v1/verifications/{id}/media',
  submitVerification: 'POST /v1/verifications/{id}/submit',
  eraseVerificationData: 'DELETE /v1/verifications/{id}/data',
  createWalletRequest: 'POST /v1/verifications/{id}/wallet-requests',
  submitWalletResponse: 'POST /v1/verifications/{id}/wallet-responses',
} as const;

/** The statuses that fire a webhook: a decision, or a state someone must act on. */
export const DECIDED_STATUSES: readonly VerificationStatus[] = [
  'approved',
  'declined',
  'resubmission_requested',
  'review',
  'abandoned',
  'expired',
];
export const TERMINAL_STATUSES: readonly VerificationStatus[] = ['approved', 'declined', 'abandoned', 'expired'];

export type UploadInput = {
  type: 'selfie' | 'document';
  file: Uint8Array | ArrayBuffer | Blob;
  side?: 'front' | 'back';
  document_type?: 'passport' | 'id_card' | 'driving_licence';
  filename?: string;
  contentType?: string;
};

type Send = {
  json?: unknown;
  form?: { fields: [string, string][]; file: Uint8Array; filename: string; contentType: string };
  headers?: Record<string, string>;
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const enc = new TextEncoder();

export class OpenVerify {
  private readonly base: URL;
  private readonly opts: Required<Omit<OpenVerifyOptions, 'fetch' | 'now'>> & {
    fetch: typeof fetch;
    now: () => number;
  };

  constructor(options: OpenVerifyOptions) {
    if (!/^sk_(test|live)_/.test(options.secretKey))
      throw new TypeError('secretKey must be an sk_test_… or sk_live_… key.');
    this.base = new URL(options.baseUrl);
    this.opts = {
      retries: 2,
      timeoutMs: 30_000,
      maxRetryAfterSeconds: 10,
      requestTimestamp: false,
      ...options,
      fetch: options.fetch ?? globalThis.fetch.bind(globalThis),
      now: options.now ?? Date.now,
    };
  }

  /** The mode the secret key works in. */
  get mode(): 'test' | 'live' {
    return this.opts.secretKey.startsWith('sk_live_') ? 'live' : 'test';
  }

  /** POST /v1/verifications. A retry after a lost answer returns the same verification (Idempotency-Key). */
  createVerification(
    input: CreateVerificationInput = {},
    options: { idempotencyKey?: string } = {},
  ): Promise<VerificationCreated> {
    return this.request('POST', '/v1/verifications', {
      json: input,
      headers: { 'idempotency-key': options.idempotencyKey ?? crypto.randomUUID() },
    });
  }

  getVerification(id: string): Promise<Verification> {
    return this.request('GET', `/v1/verifications/${encodeURIComponent(id)}`);
  }

  /** GET /v1/verifications (reconciliation): one page. */
  listVerifications(query: ListVerificationsQuery = {}): Promise<VerificationList> {
    const q: string[] = [];
    const add = (k: string, v: string | undefined) => v !== undefined && q.push(`${rfc3986(k)}=${rfc3986(v)}`);
    add('external_id', query.external_id);
    add('status', Array.isArray(query.status) ? query.status.join(',') : query.status);
    add('updated_since', query.updated_since instanceof Date ? query.updated_since.toISOString() : query.updated_since);
    add('limit', query.limit === undefined ? undefined : String(query.limit));
    add('cursor', query.cursor);
    return this.request('GET', `/v1/verifications${q.length ? `?${q.join('&')}` : ''}`);
  }

  /** Every verification matching the query, page after page. */
  async *iterateVerifications(query: Omit<ListVerificationsQuery, 'cursor'> = {}): AsyncGenerator<Verification> {
    let cursor: string | undefined;
    do {
      const page = await this.listVerifications({ ...query, cursor });
      yield* page.items;
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
  }

  getActiveConsent(): Promise<ConsentVersion> {
    return this.request('GET', '/v1/consent');
  }

  /** The full consent text of a version, checked against its text_sha256 (ConsentIntegrityError otherwise). */
  async fetchConsentText(version: ConsentVersion): Promise<string> {
    let res: Response;
    try {
      res = await this.opts.fetch(version.url, { signal: AbortSignal.timeout(this.opts.timeoutMs) });
    } catch (e) {
      throw new NetworkError(`Could not fetch the consent text: ${(e as Error).message}`, { cause: e });
    }
    if (!res.ok) throw new NetworkError(`Could not fetch the consent text: HTTP ${res.status}`);
    const bytes = new Uint8Array(await res.arrayBuffer());
    if ((await sha256Hex(bytes)) !== version.text_sha256.toLowerCase()) {
      throw new ConsentIntegrityError(
        'The consent text does not match its SHA-256: it changed on the way, or a new version is active. Fetch the active version again.',
      );
    }
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  }

  acceptConsent(id: string, consentVersionId: number, textSha256: string): Promise<ConsentAccepted> {
    return this.request('POST', `/v1/verifications/${encodeURIComponent(id)}/consent`, {
      json: { consent_version_id: consentVersionId, text_sha256: textSha256 },
    });
  }

  /**
   * The consent step: the active version, its text fetched and checked against its hash, then `show(text)` (where
   * you display it, unchanged, and resolve once the user accepted), then the acceptance recorded with that hash.
   */
  async consent(
    id: string,
    show: (text: string, version: ConsentVersion) => void | Promise<void> = () => {},
  ): Promise<{ version: ConsentVersion; text: string; consent: ConsentAccepted }> {
    const version = await this.getActiveConsent();
    const text = await this.fetchConsentText(version);
    await show(text, version);
    const consent = await this.acceptConsent(id, version.id, version.text_sha256);
    return { version, text, consent };
  }

  /** POST /v1/verifications/{id}/media: multipart, signed over the fields and the file's SHA-256. */
  async uploadMedia(id: string, input: UploadInput): Promise<Media> {
    const file =
      input.file instanceof Uint8Array
        ? input.file
        : input.file instanceof ArrayBuffer
          ? new Uint8Array(input.file)
          : new Uint8Array(await input.file.arrayBuffer());
    const fields: [string, string][] = [['type', input.type]];
    if (input.side) fields.push(['side', input.side]);
    if (input.document_type) fields.push(['document_type', input.document_type]);
    return this.request('POST', `/v1/verifications/${encodeURIComponent(id)}/media`, {
      form: {
        fields,
        file,
        filename: input.filename ?? 'photo.jpg',
        contentType: input.contentType ?? 'application/octet-stream',
      },
    });
  }

  /** POST /v1/verifications/{id}/submit. A retry whose first try was applied finds it submitted: that is returned. */
  async submit(id: string): Promise<Submitted> {
    try {
      return await this.request('POST', `/v1/verifications/${encodeURIComponent(id)}/submit`);
    } catch (e) {
      if (
        e instanceof ConflictError &&
        e.code === 'INVALID_STATUS' &&
        (e as ConflictError & { retried?: boolean }).retried
      ) {
        const v = await this.getVerification(id);
        if (v.submitted_at)
          return { id: v.id, status: v.status, submitted_at: v.submitted_at, attempts_remaining: v.attempts_remaining };
      }
      throw e;
    }
  }

  /** Polls GET until the verification reaches one of `statuses` (default: any status that fires a webhook). */
  async waitForDecision(
    id: string,
    options: { timeoutMs?: number; intervalMs?: number; statuses?: readonly VerificationStatus[] } = {},
  ): Promise<Verification> {
    const until = Date.now() + (options.timeoutMs ?? 120_000);
    const statuses = options.statuses ?? DECIDED_STATUSES;
    for (;;) {
      const v = await this.getVerification(id);
      if (statuses.includes(v.status)) return v;
      if (Date.now() >= until) throw new TimeoutError(`Verification ${id} is still ${v.status}.`);
      await sleep(Math.min(options.intervalMs ?? 2000, Math.max(0, until - Date.now())));
    }
  }

  /**
   * POST /v1/verifications/{id}/wallet-requests (extension, docs/wallet.md): a request for a digital ID wallet's
   * age proof, bound to `origin` (the page that will call the browser API). Pass `protocol` and `data` unchanged to
   * `navigator.credentials.get({ digital: { requests: [{ protocol, data }] } })` on that page.
   */
  createWalletRequest(id: string, input: WalletRequestInput): Promise<WalletRequest> {
    return this.request('POST', `/v1/verifications/${encodeURIComponent(id)}/wallet-requests`, {
      json: { protocol: input.protocol, origin: input.origin },
    });
  }

  /**
   * POST /v1/verifications/{id}/wallet-responses: the DigitalCredential the browser returned (its `protocol` and
   * `data`), for the request `request_id`. Resolves with the decided verification; a refused proof throws
   * WalletResponseInvalidError (`reason`), the verification unchanged.
   */
  submitWalletResponse(id: string, input: WalletResponseInput): Promise<Verification> {
    return this.request('POST', `/v1/verifications/${encodeURIComponent(id)}/wallet-responses`, {
      json: { request_id: input.request_id, protocol: input.protocol, data: input.data },
    });
  }

  /** DELETE /v1/verifications/{id}/data: erase now, with the signed receipt (idempotent). */
  eraseData(id: string): Promise<Erasure> {
    return this.request('DELETE', `/v1/verifications/${encodeURIComponent(id)}/data`);
  }

  private async request<T>(method: string, path: string, send: Send = {}): Promise<T> {
    const prefix = this.base.pathname.replace(/\/+$/, '');
    const target = prefix + path;
    const url = this.base.origin + target;
    const headers: Record<string, string> = {
      'x-api-key': this.opts.apiKey,
      accept: 'application/json',
      ...send.headers,
    };
    let body: BodyInit | undefined;
    let canonical: Uint8Array | string;
    if (send.form) {
      const { fields, file, filename, contentType } = send.form;
      const form = new FormData();
      for (const [k, v] of fields) form.append(k, v);
      form.append('file', new Blob([file as BlobPart], { type: contentType }), filename);
      body = form;
      canonical = canonicalMultipart(method, target, fields, [await sha256Hex(file)]);
    } else {
      const bytes = send.json === undefined ? new Uint8Array() : enc.encode(JSON.stringify(send.json));
      if (bytes.byteLength) {
        headers['content-type'] = 'application/json';
        body = bytes as unknown as BodyInit;
      }
      canonical = canonicalJson(method, target, bytes);
    }
    for (let attempt = 0; ; attempt++) {
      // Signed at each attempt: a retry after a wait carries a fresh timestamp.
      if (this.opts.requestTimestamp) {
        const ts = Math.floor(this.opts.now() / 1000);
        headers['x-request-timestamp'] = String(ts);
        headers['x-hmac-signature'] = await hmacHex(this.opts.secretKey, withTimestamp(ts, canonical));
      } else {
        headers['x-hmac-signature'] = await hmacHex(this.opts.secretKey, canonical);
      }
      let res: Response;
      try {
        res = await this.opts.fetch(url, {
          method,
          headers: { ...headers },
          body,
          signal: AbortSignal.timeout(this.opts.timeoutMs),
        });
      } catch (e) {
        if (attempt < this.opts.retries) {
          await sleep(250 * 2 ** attempt);
          continue;
        }
        throw new NetworkError(`${method} ${path}: no answer after ${attempt + 1} tries: ${(e as Error).message}`, {
          cause: e,
        });
      }
      const text = await res.text();
      let parsed: unknown = undefined;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        /* not JSON: a proxy's page */
      }
      if (res.ok) return (parsed as { data: T }).data;
      const retryAfter = res.headers.has('retry-after') ? Number(res.headers.get('retry-after')) : undefined;
      if (
        res.status === 503 &&
        retryAfter !== undefined &&
        retryAfter <= this.opts.maxRetryAfterSeconds &&
        attempt < this.opts.retries
      ) {
        await sleep(retryAfter * 1000);
        continue;
      }
      const err = apiError(res.status, parsed, retryAfter);
      if (attempt > 0) Object.assign(err, { retried: true });
      throw err;
    }
  }
}

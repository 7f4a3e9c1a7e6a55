/** An integrator's signed HTTP client for a running server (benchmarks, restart, crash and security tests). */
import { signJsonRequest, signMultipartRequest } from '@/lib/domain/auth/sign';
import type { JsonBody } from './http';

/** How a request is sent: fetch by default; the security tests send over a fresh socket each time. */
export type Transport = (
  base: string,
  method: string,
  pathAndQuery: string,
  headers: Record<string, string>,
  body?: string | Uint8Array,
) => Promise<{ status: number; text: string; json: JsonBody }>;

export const fetchTransport: Transport = async (base, method, p, headers, body) => {
  const r = await fetch(base + p, { method, body: body as BodyInit | undefined, headers });
  const text = await r.text();
  let json: JsonBody = null;
  try {
    json = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: r.status, text, json };
};

/** A multipart body of form fields and one file, as a client would send it (the signature does not cover the boundary). */
function multipartBody(fields: Record<string, string>, bytes: Uint8Array, boundary = 'XyZsigned') {
  const parts = Object.entries(fields).map(
    ([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`,
  );
  const body = Buffer.concat([
    Buffer.from(
      parts.join('') +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="photo.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`,
    ),
    bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

export function apiClient(
  base: string | (() => string),
  apiKey: string,
  secret: string,
  send: Transport = fetchTransport,
) {
  const at = () => (typeof base === 'function' ? base() : base);
  const json = async (method: string, p: string, body = '') => {
    const r = await send(
      at(),
      method,
      p,
      {
        'content-type': 'application/json',
        'x-api-key': apiKey,
        'x-hmac-signature': signJsonRequest(secret, method, p, body),
      },
      body || undefined,
    );
    return r.json as { data?: JsonBody; error?: JsonBody };
  };
  const uploadFile = async (id: string, fields: Record<string, string>, bytes: Buffer) => {
    const p = `/v1/verifications/${id}/media`;
    const { body, contentType } = multipartBody(fields, bytes);
    const r = await send(
      at(),
      'POST',
      p,
      {
        'content-type': contentType,
        'x-api-key': apiKey,
        'x-hmac-signature': signMultipartRequest(secret, 'POST', p, Object.entries(fields), [bytes]),
      },
      body,
    );
    if (r.status !== 201) throw new Error(`upload ${r.status}: ${r.text}`);
  };
  return {
    json,
    /** Create, accept consent, upload the media: a verification ready to submit. */
    async prepare(media: { selfie: Buffer; front?: [string, Buffer]; back?: Buffer }, body: object = {}) {
      const id = (await json('POST', '/v1/verifications', JSON.stringify(body))).data.id as string;
      const consent = (await json('GET', '/v1/consent')).data;
      await json(
        'POST',
        `/v1/verifications/${id}/consent`,
        JSON.stringify({ consent_version_id: consent.id, text_sha256: consent.text_sha256 }),
      );
      await uploadFile(id, { type: 'selfie' }, media.selfie);
      if (media.front)
        await uploadFile(id, { type: 'document', side: 'front', document_type: media.front[0] }, media.front[1]);
      if (media.back)
        await uploadFile(id, { type: 'document', side: 'back', document_type: media.front![0] }, media.back);
      return id;
    },
    submit: (id: string) => json('POST', `/v1/verifications/${id}/submit`),
    async get(id: string) {
      const r = await json('GET', `/v1/verifications/${id}`);
      if (!r.data) throw new Error(`GET ${id}: ${JSON.stringify(r.error)}`);
      return r.data;
    },
    async waitDecided(id: string, ms = 60_000, pollMs = 50) {
      const until = Date.now() + ms;
      for (;;) {
        const v = await this.get(id);
        if (v.status !== 'submitted') return v;
        if (Date.now() > until) throw new Error(`${id} still submitted after ${ms} ms`);
        await new Promise((r) => setTimeout(r, pollMs));
      }
    },
  };
}

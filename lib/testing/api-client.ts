/** An integrator's signed HTTP client for a running server (benchmarks and restart tests). */
import { signJsonRequest, signMultipartRequest } from '@/lib/auth/sign';
import type { JsonBody } from './http';

export function apiClient(base: string, apiKey: string, secret: string) {
  const json = async (method: string, p: string, body = '') => {
    const r = await fetch(base + p, { method, body: body || undefined, headers: { 'content-type': 'application/json', 'x-api-key': apiKey, 'x-hmac-signature': signJsonRequest(secret, method, p, body) } });
    return (await r.json()) as { data?: JsonBody; error?: JsonBody };
  };
  const uploadFile = async (id: string, fields: Record<string, string>, bytes: Buffer) => {
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    form.append('file', new Blob([bytes as BlobPart], { type: 'image/jpeg' }), 'photo.jpg');
    const p = `/v1/verifications/${id}/media`;
    const r = await fetch(base + p, { method: 'POST', body: form, headers: { 'x-api-key': apiKey, 'x-hmac-signature': signMultipartRequest(secret, 'POST', p, Object.entries(fields), [bytes]) } });
    if (r.status !== 201) throw new Error(`upload ${r.status}: ${await r.text()}`);
  };
  return {
    json,
    /** Create, accept consent, upload the media: a verification ready to submit. */
    async prepare(media: { selfie: Buffer; front?: [string, Buffer]; back?: Buffer }, body: object = {}) {
      const id = (await json('POST', '/v1/verifications', JSON.stringify(body))).data.id as string;
      const consent = (await json('GET', '/v1/consent')).data;
      await json('POST', `/v1/verifications/${id}/consent`, JSON.stringify({ consent_version_id: consent.id, text_sha256: consent.text_sha256 }));
      await uploadFile(id, { type: 'selfie' }, media.selfie);
      if (media.front) await uploadFile(id, { type: 'document', side: 'front', document_type: media.front[0] }, media.front[1]);
      if (media.back) await uploadFile(id, { type: 'document', side: 'back', document_type: media.front![0] }, media.back);
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

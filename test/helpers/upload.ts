/** Signed multipart uploads, as an integrator sends them. */
import { POST as mediaRoute } from '@/app/v1/verifications/[id]/media/route';
import { POST as submitRoute } from '@/app/v1/verifications/[id]/submit/route';
import { POST as consentRoute } from '@/app/v1/verifications/[id]/consent/route';
import { POST as createRoute } from '@/app/v1/verifications/route';
import { signMultipartRequest } from '@/lib/domain/auth/sign';
import { ensureConsent, type TestWorkspace } from './factories';
import { call } from './http';
import { checkContract } from './contract';

export async function upload(
  w: { apiKey: string },
  secret: string,
  id: string,
  fields: Record<string, string>,
  file: Uint8Array | null,
  opts: { fileType?: string; signature?: string } = {},
) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  if (file) form.append('file', new Blob([file as BlobPart], { type: opts.fileType ?? 'image/jpeg' }), 'photo.jpg');
  const path = `/v1/verifications/${id}/media`;
  const signature =
    opts.signature ?? signMultipartRequest(secret, 'POST', path, Object.entries(fields), file ? [file] : []);
  const req = new Request('http://verify.test' + path, {
    method: 'POST',
    body: form,
    headers: { 'x-api-key': w.apiKey, 'x-hmac-signature': signature },
  });
  const res = await mediaRoute(req, { params: Promise.resolve({ id }) });
  const json = await res.json();
  checkContract(mediaRoute, res.status, json);
  return { status: res.status, json, headers: res.headers };
}

export const submit = (w: TestWorkspace, secret: string, id: string) =>
  call(submitRoute, {
    method: 'POST',
    path: `/v1/verifications/${id}/submit`,
    apiKey: w.apiKey,
    secret,
    params: { id },
  });

/** A verification with consent accepted, ready for uploads. */
export async function consentedVerification(w: TestWorkspace, secret = w.testSecret, body: object = {}) {
  const active = await ensureConsent();
  const c = await call(createRoute, { method: 'POST', path: '/v1/verifications', body, apiKey: w.apiKey, secret });
  const id = c.json.data.id as string;
  const r = await call(consentRoute, {
    method: 'POST',
    path: `/v1/verifications/${id}/consent`,
    body: { consent_version_id: active.id, text_sha256: active.textSha256 },
    apiKey: w.apiKey,
    secret,
    params: { id },
  });
  if (r.status !== 200) throw new Error(`consent failed: ${r.text}`);
  return id;
}

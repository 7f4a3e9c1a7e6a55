/**
 * The capture endpoints' rules (token auth, same validation as /v1, per-link rate limit), in-process
 * against the real database. The page itself is tested in Chromium (e2e/).
 */
import { describe, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { verifications } from '@/lib/db/schema';
import { GET as stateRoute } from '@/app/api/capture/[token]/route';
import { POST as consentRoute } from '@/app/api/capture/[token]/consent/route';
import { POST as mediaRoute } from '@/app/api/capture/[token]/media/route';
import { POST as submitRoute } from '@/app/api/capture/[token]/submit/route';
import { POST as createRoute } from '@/app/v1/verifications/route';
import { call } from '@/test/helpers/http';
import { ensureConsent, makeWorkspace } from '@/test/helpers/factories';
import * as I from '@/test/helpers/images';
import { randomToken } from '@/lib/core/ids';
import { CAPTURE_RATE_LIMIT_PER_MINUTE } from './auth';

async function newLink(check: 'estimation' | 'document_verification' = 'estimation') {
  const w = await makeWorkspace({ check_method: check });
  const c = await call(createRoute, {
    method: 'POST',
    path: '/v1/verifications',
    body: {},
    apiKey: w.apiKey,
    secret: w.testSecret,
  });
  const token = new URL(c.json.data.url).pathname.split('/').pop()!;
  return { w, id: c.json.data.id as string, token };
}
const state = (token: string) => call(stateRoute, { path: `/api/capture/${token}`, params: { token } });
const consent = (token: string, body: object) =>
  call(consentRoute, { method: 'POST', path: `/api/capture/${token}/consent`, body, params: { token } });
async function upload(token: string, fields: Record<string, string>, file: Buffer) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append('file', new Blob([file as BlobPart], { type: 'image/jpeg' }), 'photo.jpg');
  const res = await mediaRoute(
    new Request(`http://verify.test/api/capture/${token}/media`, { method: 'POST', body: form }),
    { params: Promise.resolve({ token }) },
  );
  return { status: res.status, json: await res.json() };
}

describe('capture endpoints', () => {
  it('the token opens its verification only: state, consent by the hash of the text shown, upload, submit', async () => {
    const active = await ensureConsent();
    const { id, token } = await newLink();
    const s = await state(token);
    expect(s.status).toBe(200);
    expect(s.json.data).toMatchObject({
      status: 'created',
      mode: 'test',
      needs_document: false,
      consent: { accepted: false, version: { id: active.id, locales: active.texts.map((t) => t.locale) } },
      missing: ['selfie'],
    });
    // No secret, no id of anything else in the answer.
    expect(JSON.stringify(s.json)).not.toMatch(/sk_(test|live)_|pk_/);

    // Media before consent: 403 CONSENT_REQUIRED, as on /v1.
    expect((await upload(token, { type: 'selfie' }, I.astronaut())).json.error.code).toBe('CONSENT_REQUIRED');
    // A hash of other bytes than the active text: 409, nothing recorded.
    const bad = await consent(token, { consent_version_id: active.id, text_sha256: 'a'.repeat(64) });
    expect([bad.status, bad.json.error.code]).toEqual([409, 'CONSENT_SHA256_MISMATCH']);
    expect((await state(token)).json.data.consent.accepted).toBe(false);
    const ok = await consent(token, { consent_version_id: active.id, text_sha256: active.textSha256 });
    expect(ok.status).toBe(200);
    expect(ok.json.data.consent.accepted).toBe(true);

    // The same media validation as /v1, with its codes.
    const dark = await upload(token, { type: 'selfie' }, await I.darkened(I.astronaut()));
    expect([dark.status, dark.json.error.code]).toEqual([422, 'FACE_TOO_DARK']);
    const sub0 = await call(submitRoute, { method: 'POST', path: `/api/capture/${token}/submit`, params: { token } });
    expect([sub0.status, sub0.json.error.code, sub0.json.error.details.missing]).toEqual([
      422,
      'MISSING_REQUIRED_MEDIA',
      ['selfie'],
    ]);
    expect((await upload(token, { type: 'selfie' }, I.astronaut())).status).toBe(201);
    const sub = await call(submitRoute, { method: 'POST', path: `/api/capture/${token}/submit`, params: { token } });
    expect(sub.status).toBe(200);
    expect(sub.json.data).toEqual({ status: 'review', attempts_remaining: 4 });
    const [row] = await getDb().select().from(verifications).where(eq(verifications.id, id));
    expect(row.status).toBe('review');
    // Submitting again: INVALID_STATUS, as on /v1.
    expect(
      (await call(submitRoute, { method: 'POST', path: `/api/capture/${token}/submit`, params: { token } })).json.error
        .code,
    ).toBe('INVALID_STATUS');
  });

  it('documents: the state says a document is needed and which sides are in', async () => {
    const active = await ensureConsent();
    const { token } = await newLink('document_verification');
    await consent(token, { consent_version_id: active.id, text_sha256: active.textSha256 });
    expect((await upload(token, { type: 'selfie' }, I.astronaut())).status).toBe(201);
    expect((await state(token)).json.data).toMatchObject({
      needs_document: true,
      missing: ['document_front', 'document_back'],
    });
    const front = await I.renderDocument('passport', 'front', I.astronaut());
    expect((await upload(token, { type: 'document', side: 'front', document_type: 'passport' }, front)).status).toBe(
      201,
    );
    expect((await state(token)).json.data).toMatchObject({
      missing: [],
      media: { selfie: true, document_front: true, document_type: 'passport' },
    });
  });

  it('an unknown or malformed token is 404 in the error envelope; malformed bodies are 4xx, never 500', async () => {
    for (const token of ['x'.repeat(43), 'short', '../../etc']) {
      const r = await state(token);
      expect([r.status, r.json.error.code]).toEqual([404, 'NOT_FOUND']);
    }
    const { token } = await newLink();
    const r = await call(consentRoute, {
      method: 'POST',
      path: `/api/capture/${token}/consent`,
      body: '{"consent_version_id":',
      params: { token },
    });
    expect(r.status).toBe(422);
    expect(r.json.error.code).toBe('VALIDATION_ERROR');
  });

  it(`rate-limits each link on its own (${CAPTURE_RATE_LIMIT_PER_MINUTE} per minute), with Retry-After`, async () => {
    const a = await newLink();
    const b = await newLink();
    for (let i = 0; i < CAPTURE_RATE_LIMIT_PER_MINUTE; i++) expect((await state(a.token)).status).toBe(200);
    const limited = await state(a.token);
    expect([limited.status, limited.json.error.code]).toEqual([429, 'RATE_LIMIT']);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Another link is not affected, nor is the workspace's API limit.
    expect((await state(b.token)).status).toBe(200);
  });

  it('an unknown token leaves nothing behind (no rate-limit row: probing cannot fill the table)', async () => {
    const count = async () =>
      Number(
        (await getDb().execute<{ n: number }>(sql`select count(*) as n from rate_limits where key like 'cap:%'`))[0].n,
      );
    const before = await count();
    for (let i = 0; i < 5; i++) expect((await state(randomToken())).status).toBe(404);
    expect(await count()).toBe(before);
  });
});

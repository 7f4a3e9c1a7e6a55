/**
 * Errors that teach (issue 43): INVALID_SIGNATURE shows the canonical request as the server built it, for the three
 * mistakes integrators make (the body left out, the full URL signed, the query left out of a GET) and for
 * multipart, never the secret or the signature expected; a key of one mode reading the other mode's verification
 * is told the key's mode.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createHash, createHmac } from 'node:crypto';
import { GET as list, POST as create } from '@/app/v1/verifications/route';
import { GET as getOne } from '@/app/v1/verifications/[id]/route';
import { POST as submit } from '@/app/v1/verifications/[id]/submit/route';
import { POST as upload } from '@/app/v1/verifications/[id]/media/route';
import { call } from '@/test/helpers/http';
import { makeWorkspace, type TestWorkspace } from '@/test/helpers/factories';

const hmac = (secret: string, s: string) => createHmac('sha256', secret).update(s).digest('hex');
const sha256 = (b: string | Buffer) => createHash('sha256').update(b).digest('hex');
const DOCS = 'docs/api.md#authentication';

describe('errors that teach', () => {
  let w: TestWorkspace;
  beforeAll(async () => {
    w = await makeWorkspace();
  });

  /** Nothing in the answer that the caller did not send: not the secrets, not the signature the server expected. */
  function expectNoSecrets(text: string, expected: string) {
    for (const s of [w.testSecret, w.liveSecret, expected]) expect(text).not.toContain(s);
  }

  it('INVALID_SIGNATURE, the body left out of the signed string: the body length and SHA-256 the server signed', async () => {
    const body = '{"external_id":"user-42"}';
    const r = await call(create, {
      method: 'POST',
      path: '/v1/verifications',
      body,
      apiKey: w.apiKey,
      signature: hmac(w.testSecret, 'POST/v1/verifications'),
    });
    expect([r.status, r.json.error.code]).toEqual([401, 'INVALID_SIGNATURE']);
    expect(r.json.error.details).toEqual({
      canonical: { method: 'POST', path: '/v1/verifications', body_length: 25, body_sha256: sha256(body) },
      docs: DOCS,
    });
    expect(r.json.error.message).toBe(
      'The signature does not match the request. The server signed HMAC-SHA256 of "POST/v1/verifications" followed by the raw body (25 bytes here), no separators: compare details.canonical with what you signed (path without scheme or host, the query exactly as sent, the exact body bytes).',
    );
    expectNoSecrets(r.text, hmac(w.testSecret, 'POST/v1/verifications' + body));
  });

  it('INVALID_SIGNATURE, the full URL signed: the path the server signed has no scheme or host', async () => {
    const body = '{"external_id":"user-43"}';
    const r = await call(create, {
      method: 'POST',
      path: '/v1/verifications',
      body,
      apiKey: w.apiKey,
      signature: hmac(w.testSecret, 'POSThttp://verify.test/v1/verifications' + body),
    });
    expect([r.status, r.json.error.code, r.json.error.details.canonical.path]).toEqual([
      401,
      'INVALID_SIGNATURE',
      '/v1/verifications',
    ]);
    expectNoSecrets(r.text, hmac(w.testSecret, 'POST/v1/verifications' + body));
  });

  it('INVALID_SIGNATURE, the query left out of a GET: the path the server signed carries it, and the body is empty', async () => {
    const path = '/v1/verifications?external_id=user-42&limit=5';
    const r = await call(list, { path, apiKey: w.apiKey, signature: hmac(w.testSecret, 'GET/v1/verifications') });
    expect([r.status, r.json.error.code]).toEqual([401, 'INVALID_SIGNATURE']);
    expect(r.json.error.details).toEqual({
      canonical: { method: 'GET', path, body_length: 0, body_sha256: sha256('') },
      docs: DOCS,
    });
    expectNoSecrets(r.text, hmac(w.testSecret, 'GET' + path));
  });

  it('INVALID_SIGNATURE on a multipart upload: the three lines the server signed (fields, then the files by SHA-256)', async () => {
    const id = '01936f3e-1c2a-7000-8000-000000000001';
    const file = Buffer.from('not really a photo');
    const form = new FormData();
    form.append('type', 'selfie');
    form.append('file', new Blob([file], { type: 'image/jpeg' }), 'selfie.jpg');
    const path = `/v1/verifications/${id}/media`;
    const req = new Request('http://verify.test' + path, {
      method: 'POST',
      body: form,
      headers: { 'x-api-key': w.apiKey, 'x-hmac-signature': hmac(w.testSecret, `POST${path}`) },
    });
    const res = await upload(req, { params: Promise.resolve({ id }) });
    const json = await res.json();
    expect([res.status, json.error.code]).toEqual([401, 'INVALID_SIGNATURE']);
    expect(json.error.details).toEqual({
      canonical: { method: 'POST', path, lines: [`POST${path}`, 'type=selfie', sha256(file)] },
      docs: DOCS,
    });
    expectNoSecrets(JSON.stringify(json), hmac(w.testSecret, `POST${path}\ntype=selfie\n${sha256(file)}`));
  });

  it("a key of one mode reading the other mode's verification: 404 naming the key's mode, nothing of the other", async () => {
    const live = await call(create, {
      method: 'POST',
      path: '/v1/verifications',
      body: { external_id: 'live-1' },
      apiKey: w.apiKey,
      secret: w.liveSecret,
    });
    const test = await call(create, {
      method: 'POST',
      path: '/v1/verifications',
      body: { external_id: 'test-1' },
      apiKey: w.apiKey,
      secret: w.testSecret,
    });
    expect([live.status, test.status]).toEqual([201, 201]);
    const read = (id: string, secret: string) =>
      call(getOne, { path: `/v1/verifications/${id}`, params: { id }, apiKey: w.apiKey, secret });
    const byTest = await read(live.json.data.id, w.testSecret);
    expect([byTest.status, byTest.json.error.code, byTest.json.error.message]).toEqual([
      404,
      'NOT_FOUND',
      'Verification not found for this test key.',
    ]);
    const byLive = await read(test.json.data.id, w.liveSecret);
    expect([byLive.status, byLive.json.error.message]).toEqual([404, 'Verification not found for this live key.']);
    // An id that exists in no mode gets the same answer: the message tells nothing of the other mode.
    const none = await read('01936f3e-1c2a-7000-8000-0000000000ff', w.testSecret);
    expect([none.status, none.json.error.message]).toEqual([404, 'Verification not found for this test key.']);
    const id = live.json.data.id;
    const sub = await call(submit, {
      method: 'POST',
      path: `/v1/verifications/${id}/submit`,
      params: { id },
      apiKey: w.apiKey,
      secret: w.testSecret,
    });
    expect([sub.status, sub.json.error.message]).toEqual([404, 'Verification not found for this test key.']);
  });
});

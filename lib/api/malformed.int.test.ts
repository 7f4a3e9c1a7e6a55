/** Bad input of every kind gets the error envelope with the right code, never a 500. */
import { beforeAll, describe, expect, it } from 'vitest';
import { createHmac } from 'node:crypto';
import { GET as list, POST as create } from '@/app/v1/verifications/route';
import { GET as getOne } from '@/app/v1/verifications/[id]/route';
import { POST as postConsent } from '@/app/v1/consent/route';
import { GET as unknownPath } from '@/app/v1/[...path]/route';
import { call } from '@/test/helpers/http';
import { ensureConsent, makeWorkspace, type TestWorkspace } from '@/test/helpers/factories';

const sign = (secret: string, s: string | Buffer, body: string | Buffer = '') =>
  createHmac('sha256', secret).update(s).update(body).digest('hex');

describe('malformed input', () => {
  let w: TestWorkspace;
  const post = (body: string | Uint8Array, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
    call(create, { method: 'POST', path: '/v1/verifications', body, headers, apiKey: w.apiKey, secret: w.testSecret });

  beforeAll(async () => {
    await ensureConsent();
    w = await makeWorkspace();
  });

  it('invalid JSON → 422 VALIDATION_ERROR', async () => {
    const r = await post('{"external_id": ');
    expect([r.status, r.json.error.code]).toEqual([422, 'VALIDATION_ERROR']);
  });

  it('NUL characters and unpaired surrogates (Postgres cannot store them) → 422 VALIDATION_ERROR naming the field, at any depth, keys and query parameters included', async () => {
    const cases: [string, string][] = [
      ['{"external_id":"\\ud800"}', 'external_id'],
      ['{"external_id":"a\\udc00b"}', 'external_id'],
      ['{"external_id":"a\\u0000b"}', 'external_id'],
      ['{"external_metadata":{"a":"\\u0000"}}', 'external_metadata.a'],
      ['{"external_metadata":{"\\ud800":1}}', 'external_metadata'],
      ['{"external_metadata":{"x":{"y":["ok","\\ud800z"]}}}', 'external_metadata.x.y.1'],
      ['{"external_metadata":{"x":{"a\\u0000":true}}}', 'external_metadata.x'],
      ['{"\\u0000":1}', 'body'],
    ];
    for (const [body, field] of cases) {
      const r = await post(body);
      expect([body, r.status, r.json.error.code, Object.keys(r.json.error.details.fields)]).toEqual([
        body,
        422,
        'VALIDATION_ERROR',
        [field],
      ]);
    }
    // A surrogate pair is one character, stored as such.
    const ok = await post(
      '{"external_id":"ok-\\ud83d\\ude00","external_metadata":{"\\ud83d\\ude00":"\\ud83d\\ude00"}}',
    );
    expect([ok.status, ok.json.data.external_id]).toEqual([201, 'ok-😀']);
    for (const [query, field] of [
      ['external_id=a%00b', 'external_id'],
      ['status=approved&external_id=%00', 'external_id'],
      ['a%00=1', 'query'],
    ]) {
      const path = `/v1/verifications?${query}`;
      const r = await call(list, { path, apiKey: w.apiKey, secret: w.testSecret });
      expect([query, r.status, r.json.error.code, Object.keys(r.json.error.details.fields)]).toEqual([
        query,
        422,
        'VALIDATION_ERROR',
        [field],
      ]);
    }
  });

  it('invalid UTF-8 → 422 VALIDATION_ERROR', async () => {
    const r = await post(Buffer.from([0x7b, 0xff, 0x7d]));
    expect([r.status, r.json.error.code]).toEqual([422, 'VALIDATION_ERROR']);
  });

  it('JSON that is not an object → 422', async () => {
    for (const body of ['[]', '"x"', '42', 'null']) {
      const r = await post(body);
      expect([body, r.status, r.json.error.code]).toEqual([body, 422, 'VALIDATION_ERROR']);
    }
  });

  it('wrong content type → 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const r = await post('external_id=a', { 'content-type': 'application/x-www-form-urlencoded' });
    expect([r.status, r.json.error.code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
  });

  it('1 MiB body → 413 PAYLOAD_TOO_LARGE (over the 64 KiB JSON limit), without a content-length too', async () => {
    const big = JSON.stringify({ external_metadata: { pad: 'x'.repeat(1024 * 1024) } });
    const r = await post(big);
    expect([r.status, r.json.error.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
    const stream = new ReadableStream({
      start(c) {
        for (let i = 0; i < 16; i++) c.enqueue(new Uint8Array(64 * 1024).fill(32));
        c.close();
      },
    });
    const req = new Request('http://verify.test/v1/verifications', {
      method: 'POST',
      body: stream,
      duplex: 'half',
      headers: { 'x-api-key': w.apiKey, 'x-hmac-signature': 'a'.repeat(64), 'content-type': 'application/json' },
    } as RequestInit);
    const res = await create(req);
    expect(res.status).toBe(413);
  });

  it('unknown fields → 422 naming the field', async () => {
    const r = await post(JSON.stringify({ external_id: 'a', nickname: 'b' }));
    expect([r.status, r.json.error.code]).toEqual([422, 'VALIDATION_ERROR']);
    expect(r.json.error.details.fields).toHaveProperty('nickname');
  });

  const badFields: [string, object, string][] = [
    ['external_id empty', { external_id: '' }, 'external_id'],
    ['external_id 256 characters', { external_id: 'é'.repeat(256) }, 'external_id'],
    ['external_id with a control character', { external_id: 'a\u0000b' }, 'external_id'],
    ['external_id a number', { external_id: 5 }, 'external_id'],
    ['external_metadata an array', { external_metadata: [1] }, 'external_metadata'],
    ['external_metadata over 16 KiB', { external_metadata: { a: 'x'.repeat(17 * 1024) } }, 'external_metadata'],
    ['flow unknown', { flow: 'banking' }, 'flow'],
    ['flow not the workspace’s', { flow: 'kyc' }, 'flow'],
    ['mode unknown', { mode: 'prod' }, 'mode'],
    ['mode contradicting the key', { mode: 'live' }, 'mode'],
  ];
  for (const [name, body, field] of badFields) {
    it(`422 VALIDATION_ERROR: ${name}`, async () => {
      const r = await post(JSON.stringify(body));
      expect([r.status, r.json.error.code]).toEqual([422, 'VALIDATION_ERROR']);
      expect(Object.keys(r.json.error.details.fields)).toContain(field);
    });
  }

  it('unicode external_id of 255 characters (astral) is accepted and returned unchanged', async () => {
    const id = '𝒳'.repeat(255);
    const r = await post(JSON.stringify({ external_id: id }));
    expect(r.status).toBe(201);
    expect(r.json.data.external_id).toBe(id);
  });

  it('an empty body creates with defaults', async () => {
    const r = await call(create, { method: 'POST', path: '/v1/verifications', apiKey: w.apiKey, secret: w.testSecret });
    expect(r.status).toBe(201);
    expect(r.json.data.status).toBe('created');
    expect(r.json.data.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(r.json.data.url).toMatch(/^http:\/\/verify\.test\/verify\/[A-Za-z0-9_-]{43}$/);
  });

  it('non-UUID and unknown ids → 404 NOT_FOUND', async () => {
    for (const id of ['not-a-uuid', "1' or '1'='1", '00000000-0000-7000-8000-000000000000']) {
      const path = `/v1/verifications/${encodeURIComponent(id)}`;
      const r = await call(getOne, {
        path,
        apiKey: w.apiKey,
        signature: sign(w.testSecret, 'GET' + path),
        params: { id },
      });
      expect([r.status, r.json.error.code]).toEqual([404, 'NOT_FOUND']);
    }
  });

  it('unknown /v1 paths → 404 envelope; wrong method → 405 envelope with Allow', async () => {
    const r = await unknownPath();
    expect([r.status, (await r.json()).error.code]).toEqual([404, 'NOT_FOUND']);
    const m = await postConsent();
    expect(m.status).toBe(405);
    expect(m.headers.get('allow')).toBe('GET');
    expect((await m.json()).error.code).toBe('METHOD_NOT_ALLOWED');
  });

  describe('Idempotency-Key', () => {
    it('a retried create with the same key and body returns the same verification', async () => {
      const body = JSON.stringify({ external_id: 'idem' });
      const h = { 'content-type': 'application/json', 'idempotency-key': `k-${Math.random()}` };
      const a = await post(body, h);
      const b = await post(body, h);
      expect(a.status).toBe(201);
      expect(b.status).toBe(201);
      expect(b.json.data.id).toBe(a.json.data.id);
      expect(b.headers.get('idempotent-replayed')).toBe('true');
    });

    it('the same key with a different body → 422', async () => {
      const h = { 'content-type': 'application/json', 'idempotency-key': `k-${Math.random()}` };
      await post(JSON.stringify({ external_id: 'a' }), h);
      const r = await post(JSON.stringify({ external_id: 'b' }), h);
      expect([r.status, r.json.error.code]).toEqual([422, 'VALIDATION_ERROR']);
      expect(r.json.error.details.fields).toHaveProperty('Idempotency-Key');
    });

    it('keys are scoped per workspace and mode', async () => {
      const key = `k-${Math.random()}`;
      const h = { 'content-type': 'application/json', 'idempotency-key': key };
      const a = await post('{}', h);
      const other = await makeWorkspace();
      const b = await call(create, {
        method: 'POST',
        path: '/v1/verifications',
        body: '{}',
        headers: h,
        apiKey: other.apiKey,
        secret: other.testSecret,
      });
      expect(b.json.data.id).not.toBe(a.json.data.id);
    });
  });

  it('an unexpected failure is INTERNAL_ERROR without a stack trace', async () => {
    const { errorResponse } = await import('./respond');
    const res = errorResponse(new TypeError('secret detail at /work/x.ts:1'), 'req_x');
    const body = await res.json();
    expect(res.status).toBe(500);
    expect(body.error.code).toBe('INTERNAL_ERROR');
    expect(JSON.stringify(body)).not.toContain('secret detail');
  });
});

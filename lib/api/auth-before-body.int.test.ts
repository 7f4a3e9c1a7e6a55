/**
 * Authenticate before reading (issue #19): no byte of a body is read for an unknown API key, a missing
 * signature, a workspace over its rate limit or an unknown capture link. Each body here is a stream that
 * records what was pulled from it, so "not read" is observed, not inferred.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { POST as create } from '@/app/v1/verifications/route';
import { POST as media } from '@/app/v1/verifications/[id]/media/route';
import { POST as captureMedia } from '@/app/api/capture/[token]/media/route';
import { GET as getConsent } from '@/app/v1/consent/route';
import { call } from '@/test/helpers/http';
import { ensureConsent, makeWorkspace, type TestWorkspace } from '@/test/helpers/factories';
import { randomToken } from '@/lib/core/ids';
import { signJsonRequest, signMultipartRequest } from '@/lib/domain/auth/sign';

/** A body of `chunks` × 64 KiB, arriving one every 10 ms (a client on a network), that counts the chunks taken from it. */
function watchedBody(chunks = 160, fill = 0x41) {
  const seen = { pulled: 0 };
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(c) {
        if (seen.pulled >= chunks) return c.close();
        seen.pulled++;
        await new Promise((r) => setTimeout(r, 10));
        c.enqueue(new Uint8Array(64 * 1024).fill(fill));
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, seen };
}

const request = (path: string, body: ReadableStream<Uint8Array> | string, headers: Record<string, string>) =>
  new Request('http://verify.test' + path, { method: 'POST', body, headers, duplex: 'half' } as RequestInit);

const ctx = (params: Record<string, string> = {}) => ({ params: Promise.resolve(params) });

describe('authenticate before reading the body', () => {
  let w: TestWorkspace;
  let id: string;
  beforeAll(async () => {
    await ensureConsent();
    w = await makeWorkspace();
    id = (
      await call(create, {
        method: 'POST',
        path: '/v1/verifications',
        body: {},
        apiKey: w.apiKey,
        secret: w.testSecret,
      })
    ).json.data.id;
  });

  const multipartHeaders = { 'content-type': 'multipart/form-data; boundary=XyZ' };

  it('unknown X-API-Key: 401, and not one chunk of a 10 MiB upload is read', async () => {
    const b = watchedBody();
    const res = await media(
      request(`/v1/verifications/${id}/media`, b.stream, {
        ...multipartHeaders,
        'x-api-key': 'pk_unknown',
        'x-hmac-signature': 'a'.repeat(64),
      }),
      ctx({ id }),
    );
    expect([res.status, (await res.json()).error.code]).toEqual([401, 'INVALID_API_KEY']);
    expect(b.seen.pulled).toBe(0);
  });

  it('no X-API-Key, or a known key with no signature: 401 before the body', async () => {
    for (const [headers, code] of [
      [{}, 'MISSING_API_KEY'],
      [{ 'x-api-key': w.apiKey }, 'MISSING_SIGNATURE'],
      [{ 'x-api-key': w.apiKey, 'x-hmac-signature': 'A'.repeat(64) }, 'INVALID_SIGNATURE'],
    ] as const) {
      const b = watchedBody();
      const res = await media(
        request(`/v1/verifications/${id}/media`, b.stream, { ...multipartHeaders, ...headers }),
        ctx({ id }),
      );
      expect([res.status, (await res.json()).error.code]).toEqual([401, code]);
      expect(b.seen.pulled).toBe(0);
    }
  });

  it('a tiny malformed multipart with no key is 401, not 422', async () => {
    for (const body of ['--XyZ\r\nContent-Disposition: form-da', 'garbage', '']) {
      const res = await media(request(`/v1/verifications/${id}/media`, body, multipartHeaders), ctx({ id }));
      expect([res.status, (await res.json()).error.code]).toEqual([401, 'MISSING_API_KEY']);
    }
    const noBoundary = await media(
      request(`/v1/verifications/${id}/media`, 'x', { 'content-type': 'multipart/form-data', 'x-api-key': 'pk_nope' }),
      ctx({ id }),
    );
    expect(noBoundary.status).toBe(401);
  });

  it('a workspace over its rate limit: 429 with Retry-After, the body unread', async () => {
    const limited = await makeWorkspace({ rate_limit_per_minute: 1 });
    const first = await call(getConsent, { path: '/v1/consent', apiKey: limited.apiKey, secret: limited.testSecret });
    expect(first.status).toBe(200);
    const b = watchedBody();
    const sig = signJsonRequest(limited.testSecret, 'POST', '/v1/verifications', 'irrelevant');
    const res = await create(
      request('/v1/verifications', b.stream, {
        'content-type': 'application/json',
        'x-api-key': limited.apiKey,
        'x-hmac-signature': sig,
      }),
    );
    const body = await res.json();
    expect([res.status, body.error.code]).toEqual([429, 'RATE_LIMIT']);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(b.seen.pulled).toBe(0);
  });

  it('an unknown capture link: 404, the upload unread', async () => {
    const token = randomToken();
    const b = watchedBody();
    const res = await captureMedia(request(`/api/capture/${token}/media`, b.stream, multipartHeaders), ctx({ token }));
    expect([res.status, (await res.json()).error.code]).toEqual([404, 'NOT_FOUND']);
    expect(b.seen.pulled).toBe(0);
  });

  it('a signed multipart of 100,000 fields: refused at the ninth part, the rest never read', async () => {
    let sent = 0;
    const total = 100_000;
    const stream = new ReadableStream<Uint8Array>(
      {
        pull(c) {
          if (sent >= total) {
            c.enqueue(new TextEncoder().encode('--XyZ--\r\n'));
            return c.close();
          }
          c.enqueue(new TextEncoder().encode(`--XyZ\r\nContent-Disposition: form-data; name="f${sent}"\r\n\r\nv\r\n`));
          sent++;
        },
      },
      { highWaterMark: 0 },
    );
    const p = `/v1/verifications/${id}/media`;
    const sig = signMultipartRequest(w.testSecret, 'POST', p, [], []);
    const res = await media(
      request(p, stream, { ...multipartHeaders, 'x-api-key': w.apiKey, 'x-hmac-signature': sig }),
      ctx({ id }),
    );
    const sentWhenAnswered = sent; // what is sent after the answer is read and dropped, not parsed
    const body = await res.json();
    expect([res.status, body.error.code]).toEqual([422, 'VALIDATION_ERROR']);
    expect(body.error.details.fields.body[0]).toMatch(/At most 8 parts/);
    expect(sentWhenAnswered).toBeLessThan(20);
  });

  it('a JSON body over 64 KiB is refused as it streams: 413 after the 2nd chunk, not after reading 10 MiB', async () => {
    const b = watchedBody(160, 0x20);
    const sig = signJsonRequest(w.testSecret, 'POST', '/v1/verifications', '');
    const res = await create(
      request('/v1/verifications', b.stream, {
        'content-type': 'application/json',
        'x-api-key': w.apiKey,
        'x-hmac-signature': sig,
      }),
    );
    const pulledWhenAnswered = b.seen.pulled;
    expect([res.status, (await res.json()).error.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
    // Answered at the 2nd chunk; the rest is then read and dropped (so the client sees the answer), never kept.
    expect(pulledWhenAnswered).toBeLessThanOrEqual(3);
  });

  it('external_metadata nested 10,000 deep is 422, not a stack overflow', async () => {
    const deep = '{"external_metadata":' + '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000) + '}';
    const r = await call(create, {
      method: 'POST',
      path: '/v1/verifications',
      body: deep,
      apiKey: w.apiKey,
      secret: w.testSecret,
    });
    expect([r.status, r.json.error.code]).toEqual([422, 'VALIDATION_ERROR']);
    const arrays = '{"external_metadata":{"a":' + '['.repeat(10_000) + ']'.repeat(10_000) + '}}';
    const r2 = await call(create, {
      method: 'POST',
      path: '/v1/verifications',
      body: arrays,
      apiKey: w.apiKey,
      secret: w.testSecret,
    });
    expect([r2.status, r2.json.error.code]).toEqual([422, 'VALIDATION_ERROR']);
    // 64 levels are fine.
    const ok = '{"external_metadata":' + '{"a":'.repeat(63) + '1' + '}'.repeat(63) + '}';
    expect(
      (
        await call(create, {
          method: 'POST',
          path: '/v1/verifications',
          body: ok,
          apiKey: w.apiKey,
          secret: w.testSecret,
        })
      ).status,
    ).toBe(201);
  });
});

/**
 * What a known public key can make the server do (docs/api.md "Authentication", "Media and submit"), through the
 * route handlers with real Requests whose bodies record what was pulled from them, so "not read" is observed:
 *  - uploads in progress are bounded per API key, per capture link and in all: the excess is 503
 *    ANALYSIS_QUEUE_FULL with Retry-After, before a byte of its body is read; the server's places are taken
 *    only by uploads whose signature is proven (or a capture link's), so unsigned ones never hold them;
 *  - a failed signature spends nothing of the workspace's rate limit;
 *  - failed signatures are counted per key and client address: past 10 a minute an upload from there is 429
 *    RATE_LIMIT before its body, while a correctly signed JSON or bodyless request from there is still served,
 *    and another address is not affected.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POST as create } from '@/app/v1/verifications/route';
import { GET as getVerification } from '@/app/v1/verifications/[id]/route';
import { POST as media } from '@/app/v1/verifications/[id]/media/route';
import { POST as captureMedia } from '@/app/api/capture/[token]/media/route';
import { GET as getConsent } from '@/app/v1/consent/route';
import { call } from '@/test/helpers/http';
import { ensureConsent, makeWorkspace, type TestWorkspace } from '@/test/helpers/factories';
import { signJsonRequest } from '@/lib/domain/auth/sign';
import { markRequestTargetTrusted } from '@/lib/domain/auth/canonical';
import { CLIENT_ADDRESS_HEADER } from '../domain/auth/client-address';
import { MAX_FAILURES } from './signature-failures';
import { enterServerSlot, UPLOAD_BOUNDS, uploadsInProgress } from './uploads-in-progress';
import { consentedVerification, upload as signedUpload } from '@/test/helpers/upload';
import * as I from '@/test/helpers/images';
import { isPressing } from '@/lib/domain/media/pressure';

/**
 * A multipart body that sends its first part, then holds (an upload in progress) until `finish()`, then a
 * truncated rest; `pulled` counts the chunks taken from it.
 */
function heldBody() {
  const seen = { pulled: 0 };
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const head = new TextEncoder().encode(
    '--XyZ\r\nContent-Disposition: form-data; name="type"\r\n\r\nselfie\r\n--XyZ\r\nContent-Disposition: form-data; name="file"; filename="a.jpg"\r\n\r\n',
  );
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(c) {
        seen.pulled++;
        if (seen.pulled === 1) return c.enqueue(head);
        if (seen.pulled === 2) await held;
        if (seen.pulled <= 4) return c.enqueue(new Uint8Array(64 * 1024).fill(0x41));
        c.close();
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, seen, finish: () => release() };
}

const request = (
  path: string,
  body: ReadableStream<Uint8Array> | string | undefined,
  headers: Record<string, string>,
  method = 'POST',
) => new Request('http://verify.test' + path, { method, body, headers, duplex: 'half' } as RequestInit);
const ctx = (params: Record<string, string> = {}) => ({ params: Promise.resolve(params) });
const multipart = { 'content-type': 'multipart/form-data; boundary=XyZ' };
/** Waits until `cond()` holds (requests in progress reaching their first read), at most 20 s. */
async function until(cond: () => boolean) {
  for (const end = Date.now() + 20_000; !cond();) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('what a known public key can make the server do', () => {
  let w: TestWorkspace;
  let id: string;
  let token: string;
  beforeAll(async () => {
    // As under server/serve.ts: the client's address comes from the header that server alone sets.
    markRequestTargetTrusted();
    await ensureConsent();
    w = await makeWorkspace({ rate_limit_per_minute: 100_000 });
    const created = await call(create, {
      method: 'POST',
      path: '/v1/verifications',
      body: {},
      apiKey: w.apiKey,
      secret: w.testSecret,
    });
    id = created.json.data.id;
    token = new URL(created.json.data.url).pathname.split('/').pop()!;
  });
  afterAll(() => expect(uploadsInProgress()).toBe(0));

  const upload = (from: string, body: ReadableStream<Uint8Array>, apiKey = w.apiKey) =>
    media(
      request(`/v1/verifications/${id}/media`, body, {
        ...multipart,
        'x-api-key': apiKey,
        'x-hmac-signature': 'f'.repeat(64),
        [CLIENT_ADDRESS_HEADER]: from,
      }),
      ctx({ id }),
    );

  it(`uploads in progress: ${UPLOAD_BOUNDS.perApiKey} per API key, the next one 503 ANALYSIS_QUEUE_FULL with Retry-After, its body unread`, async () => {
    const held = Array.from({ length: UPLOAD_BOUNDS.perApiKey }, () => heldBody());
    const inProgress = held.map((b, i) => upload(`10.1.0.${i}`, b.stream));
    await until(() => held.every((b) => b.seen.pulled >= 2));
    expect(uploadsInProgress(`ws:${w.workspace.id}`)).toBe(UPLOAD_BOUNDS.perApiKey);
    const extra = heldBody();
    const refused = await upload('10.1.0.99', extra.stream);
    const body = await refused.json();
    expect([refused.status, body.error.code, body.error.details.scope]).toEqual([
      503,
      'ANALYSIS_QUEUE_FULL',
      'workspace',
    ]);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(extra.seen.pulled).toBe(0);
    // The refusal marks the workspace as pressing the analysis: its jobs yield to another's (lib/domain/media/pool.ts).
    expect(isPressing(w.workspace.id)).toBe(true);
    // Another workspace is not held back by this one's uploads.
    const other = await makeWorkspace({ rate_limit_per_minute: 100_000 });
    expect(isPressing(other.workspace.id)).toBe(false);
    const theirs = heldBody();
    const answered = upload('10.1.0.98', theirs.stream, other.apiKey);
    await until(() => theirs.seen.pulled >= 2);
    theirs.finish();
    expect((await answered).status).toBe(422); // its body is truncated: read, then refused for that
    for (const b of held) b.finish();
    const done = await Promise.all(inProgress);
    expect(done.map((r) => r.status)).toEqual(Array(UPLOAD_BOUNDS.perApiKey).fill(422));
    expect(uploadsInProgress()).toBe(0);
  });

  it(`uploads in progress: ${UPLOAD_BOUNDS.perCaptureLink} per capture link, and ${UPLOAD_BOUNDS.total} in all`, async () => {
    const link = Array.from({ length: UPLOAD_BOUNDS.perCaptureLink }, () => heldBody());
    const sendLink = (b: ReadableStream<Uint8Array>) =>
      captureMedia(request(`/api/capture/${token}/media`, b, multipart), ctx({ token }));
    const linkInProgress = link.map((b) => sendLink(b.stream));
    await until(() => link.every((b) => b.seen.pulled >= 2));
    const extra = heldBody();
    const refused = await sendLink(extra.stream);
    const body = await refused.json();
    expect([refused.status, body.error.code, body.error.details.scope]).toEqual([
      503,
      'ANALYSIS_QUEUE_FULL',
      'verification',
    ]);
    expect(extra.seen.pulled).toBe(0);
    expect(isPressing(w.workspace.id)).toBe(true);

    // The server's bound: its places held (as signed uploads being analysed hold them), then one more signed upload.
    const fill = UPLOAD_BOUNDS.total - UPLOAD_BOUNDS.perCaptureLink;
    const held = Array.from({ length: fill }, () => enterServerSlot());
    expect(uploadsInProgress()).toBe(UPLOAD_BOUNDS.total);
    const late = await makeWorkspace({ rate_limit_per_minute: 100_000 });
    const lateId = await consentedVerification(late);
    const full = await signedUpload(late, late.testSecret, lateId, { type: 'selfie' }, await I.cameraFrame());
    expect([full.status, full.json.error.code, full.json.error.details.scope]).toEqual([
      503,
      'ANALYSIS_QUEUE_FULL',
      'server',
    ]);
    // An unsigned upload takes none of the server's places: it is read (and refused for its truncated body).
    const unsigned = heldBody();
    const unsignedAnswer = upload('10.2.1.2', unsigned.stream, late.apiKey);
    await until(() => unsigned.seen.pulled >= 2);
    unsigned.finish();
    expect((await unsignedAnswer).status).toBe(422);
    for (const t of held) t.release();
    for (const b of link) b.finish();
    await Promise.all(linkInProgress);
    expect(uploadsInProgress()).toBe(0);
  });

  it('a failed signature spends nothing of the rate limit: the owner keeps all of it', async () => {
    const limited = await makeWorkspace({ rate_limit_per_minute: 3 });
    for (let i = 0; i < 5; i++) {
      const r = await call(getConsent, {
        path: '/v1/consent',
        apiKey: limited.apiKey,
        signature: 'f'.repeat(64),
        headers: { [CLIENT_ADDRESS_HEADER]: `10.3.0.${i}` },
      });
      expect(r.json.error.code).toBe('INVALID_SIGNATURE');
    }
    const ok = await call(getConsent, {
      path: '/v1/consent',
      apiKey: limited.apiKey,
      secret: limited.testSecret,
      headers: { [CLIENT_ADDRESS_HEADER]: '10.3.1.1' },
    });
    expect([ok.status, ok.headers.get('x-ratelimit-remaining')]).toEqual([200, '2']);
  });

  it(`${MAX_FAILURES + 60} wrong signatures at once from one address: exactly ${MAX_FAILURES} answered 401, the rest 429; the owner's signed requests keep the full limit`, async () => {
    const owner = await makeWorkspace({ rate_limit_per_minute: 60 });
    const from = '10.5.0.1';
    const wrong = await Promise.all(
      Array.from({ length: MAX_FAILURES + 60 }, () =>
        call(getConsent, {
          path: '/v1/consent',
          apiKey: owner.apiKey,
          signature: 'e'.repeat(64),
          headers: { [CLIENT_ADDRESS_HEADER]: from },
        }),
      ),
    );
    const statuses = wrong.map((r) => r.status).sort();
    expect(statuses).toEqual([...Array(MAX_FAILURES).fill(401), ...Array(60).fill(429)]);
    const got = await call(getConsent, {
      path: '/v1/consent',
      apiKey: owner.apiKey,
      secret: owner.testSecret,
      headers: { [CLIENT_ADDRESS_HEADER]: '10.5.0.2' },
    });
    expect([got.status, got.headers.get('x-ratelimit-remaining')]).toEqual([200, '59']);
  });

  it(`failed signatures, per key and address: past ${MAX_FAILURES} a minute an upload is 429 before its body; a right signature is still served`, async () => {
    const from = '10.4.0.1';
    const bad = () =>
      call(getConsent, {
        path: '/v1/consent',
        apiKey: w.apiKey,
        signature: 'e'.repeat(64),
        headers: { [CLIENT_ADDRESS_HEADER]: from },
      });
    for (let i = 0; i < MAX_FAILURES; i++) expect((await bad()).json.error.code).toBe('INVALID_SIGNATURE');
    // The 11th wrong signature: refused by the count, with Retry-After.
    const counted = await bad();
    expect([counted.status, counted.json.error.code, counted.json.error.details.scope]).toEqual([
      429,
      'RATE_LIMIT',
      'failed_signatures',
    ]);
    const retry = Number(counted.headers.get('retry-after'));
    expect(retry >= 1 && retry <= 60).toBe(true);
    // An upload from there: refused before a byte of it is read.
    const b = heldBody();
    const refused = await upload(from, b.stream);
    const body = await refused.json();
    expect([refused.status, body.error.code]).toEqual([429, 'RATE_LIMIT']);
    expect(b.seen.pulled).toBe(0);
    b.finish();
    // A correctly signed request from the same key and address: served (the body is read, the signature checked).
    const createBody = '{"external_id":"after-the-flood"}';
    const signed = await create(
      request('/v1/verifications', createBody, {
        'content-type': 'application/json',
        'x-api-key': w.apiKey,
        'x-hmac-signature': signJsonRequest(w.testSecret, 'POST', '/v1/verifications', createBody),
        [CLIENT_ADDRESS_HEADER]: from,
      }),
    );
    expect(signed.status).toBe(201);
    const path = `/v1/verifications/${id}`;
    const got = await getVerification(
      request(
        path,
        undefined,
        {
          'x-api-key': w.apiKey,
          'x-hmac-signature': signJsonRequest(w.testSecret, 'GET', path),
          [CLIENT_ADDRESS_HEADER]: from,
        },
        'GET',
      ),
      ctx({ id }),
    );
    expect(got.status).toBe(200);
    // Another address with the same key, and the same address with another key: not affected.
    const elsewhere = heldBody();
    const fromElsewhere = upload('10.4.0.2', elsewhere.stream);
    await until(() => elsewhere.seen.pulled >= 2);
    elsewhere.finish();
    expect((await fromElsewhere).status).toBe(422);
    const other = await makeWorkspace();
    const otherKey = await call(getConsent, {
      path: '/v1/consent',
      apiKey: other.apiKey,
      signature: 'e'.repeat(64),
      headers: { [CLIENT_ADDRESS_HEADER]: from },
    });
    expect(otherKey.json.error.code).toBe('INVALID_SIGNATURE');
  });
  it(`an upload refused for what its body holds gives its counted failure back: ${MAX_FAILURES + 2} malformed uploads from one address are each 422, and a wrong signature after them is still 401`, async () => {
    const from = '10.6.0.1';
    for (let i = 0; i < MAX_FAILURES + 2; i++) {
      const b = heldBody();
      b.finish(); // a truncated multipart body, sent whole at once: 422, its signature never checked
      const r = await upload(from, b.stream);
      expect([i, r.status, (await r.json()).error.code]).toEqual([i, 422, 'VALIDATION_ERROR']);
    }
    const wrong = await call(getConsent, {
      path: '/v1/consent',
      apiKey: w.apiKey,
      signature: 'e'.repeat(64),
      headers: { [CLIENT_ADDRESS_HEADER]: from },
    });
    expect([wrong.status, wrong.json.error.code]).toEqual([401, 'INVALID_SIGNATURE']);
  });
});

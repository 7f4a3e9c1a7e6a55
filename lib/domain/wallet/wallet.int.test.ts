/**
 * Age proof with a digital ID wallet, through the routes an integrator and the hosted page call, against the real
 * database: a test IACA and document signer made here and trusted for the workspace, a test wallet answering both
 * protocols. A valid proof decides at once with its signed webhook; every refusal is 422 with its reason and leaves
 * the verification as it was; nothing of the credential is stored but the decision, the claim's value and the issuer.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createHmac } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { Verifier as Auth0Verifier } from '@auth0/mdl';
import { getDb } from '@/lib/db/client';
import { auditLog, verifications, walletRequests, webhookEvents } from '@/lib/db/schema';
import { POST as requestRoute } from '@/app/v1/verifications/[id]/wallet-requests/route';
import { POST as responseRoute } from '@/app/v1/verifications/[id]/wallet-responses/route';
import { POST as captureRequestRoute } from '@/app/api/capture/[token]/wallet-requests/route';
import { POST as captureResponseRoute } from '@/app/api/capture/[token]/wallet-responses/route';
import { POST as createRoute } from '@/app/v1/verifications/route';
import { POST as consentRoute } from '@/app/v1/verifications/[id]/consent/route';
import { call } from '@/test/helpers/http';
import { counterValue } from '@/test/helpers/metrics';
import { ensureConsent, makeWorkspace, type TestWorkspace } from '@/test/helpers/factories';
import { consentedVerification } from '@/test/helpers/upload';
import { makeAdmin } from '@/test/helpers/admin-factories';
import {
  issueMdl,
  makeIaca,
  makeSigner,
  testIssuer,
  walletRespond,
  type Credential,
  type Misbehaviour,
  type WalletAnswer,
} from '@/test/helpers/wallet';
import { selfSignedCert, startReceiver } from '@/test/helpers/https-receiver';
import { resetEnvCache, env } from '@/lib/core/env';
import { updateWorkspaceSettings } from '@/lib/domain/workspaces';
import { deliverWebhookEvent } from '@/lib/domain/webhooks/deliver';
import { loadCase } from '@/lib/domain/admin/case';
import { timeline } from '@/lib/domain/admin/timeline';
import { cborEncode, DataItem } from './mdoc';
import { addTrustAnchors } from './trust';
import { submitWalletResponse } from './respond';
import { WALLET_PROTOCOLS, type WalletProtocol } from './protocol';

const ORIGIN = 'https://shop.example';
const DAY = 86_400_000;

let w: TestWorkspace;
let issuer: Awaited<ReturnType<typeof testIssuer>>;
let adult: Credential;

beforeAll(async () => {
  // Many calls a minute: above the default rate limit of 60.
  w = await makeWorkspace({ rate_limit_per_minute: 100_000 });
  issuer = await testIssuer();
  adult = await issuer.issue();
  await addTrustAnchors(getDb(), { pem: issuer.ca.pem, workspaceId: w.workspace.id, actor: 'operator' });
});

const askWallet = (ws: TestWorkspace, secret: string, id: string, protocol: WalletProtocol, origin = ORIGIN) =>
  call(requestRoute, {
    method: 'POST',
    path: `/v1/verifications/${id}/wallet-requests`,
    body: { protocol, origin },
    apiKey: ws.apiKey,
    secret,
    params: { id },
  });
const sendAnswer = (ws: TestWorkspace, secret: string, id: string, body: object) =>
  call(responseRoute, {
    method: 'POST',
    path: `/v1/verifications/${id}/wallet-responses`,
    body,
    apiKey: ws.apiKey,
    secret,
    params: { id },
  });

/** A request from the API and the test wallet's answer to it. */
async function proof(
  id: string,
  protocol: WalletProtocol,
  o: { cred?: Credential; bad?: Misbehaviour; secret?: string; ws?: TestWorkspace } = {},
) {
  const ws = o.ws ?? w;
  const secret = o.secret ?? ws.liveSecret;
  const req = await askWallet(ws, secret, id, protocol);
  expect(req.status).toBe(201);
  const answer = await walletRespond(o.cred ?? adult, protocol, req.json.data.data, ORIGIN, o.bad);
  return { request: req.json.data, answer, body: { request_id: req.json.data.id, protocol, data: answer.data } };
}

const rowOf = async (id: string) => (await getDb().select().from(verifications).where(eq(verifications.id, id)))[0];
const tag24 = (b: Uint8Array) => cborEncode(DataItem.fromBuffer(b));
const auth0Agrees = (a: WalletAnswer) =>
  new Auth0Verifier([issuer.ca.pem]).verify(a.deviceResponse, { encodedSessionTranscript: tag24(a.transcript) });

describe.each(WALLET_PROTOCOLS)('wallet proof, %s', (protocol) => {
  it('a valid proof is one attempt and approves at once, age_source wallet, with its signed webhook', async () => {
    const tls = selfSignedCert();
    const receiver = await startReceiver(tls);
    try {
      process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS = '1';
      resetEnvCache();
      await updateWorkspaceSettings(getDb(), w.workspace.id, { webhook_url: receiver.url });
      const id = await consentedVerification(w, w.liveSecret);
      const decided = { mode: 'live', status: 'approved', by: 'wallet' };
      const before = {
        decided: await counterValue('verifications_decided_total', decided),
        verified: await counterValue('wallet_responses_total', { protocol, outcome: 'verified' }),
      };
      const { request, answer, body } = await proof(id, protocol);
      expect(request).toMatchObject({ protocol, expires_at: expect.any(String) });
      expect(new Date(request.expires_at).getTime() - Date.now()).toBeGreaterThan(4 * 60_000);
      const r = await sendAnswer(w, w.liveSecret, id, body);
      expect(r.status).toBe(200);
      expect(r.json.data).toMatchObject({
        status: 'approved',
        reason: null,
        attempts_remaining: 4,
        submitted_at: expect.any(String),
        completed_at: expect.any(String),
        result: {
          decision: 'pass',
          threshold: 18,
          age_source: 'wallet',
          wallet: {
            protocol,
            element: 'age_over_18',
            value: true,
            issuer: { country: 'UT', authority: 'Utopia Department of Motor Vehicles' },
          },
        },
      });
      await auth0Agrees(answer);
      // Counted in the metrics (docs/operating.md "Metrics"): a decision by the wallet, a verified response.
      expect(await counterValue('verifications_decided_total', decided)).toBe(before.decided + 1);
      expect(await counterValue('wallet_responses_total', { protocol, outcome: 'verified' })).toBe(before.verified + 1);

      // The decision's webhook, from the outbox, signed with the workspace's active key.
      const [event] = await getDb().select().from(webhookEvents).where(eq(webhookEvents.verificationId, id));
      expect(event.status).toBe('approved');
      await deliverWebhookEvent({ db: getDb(), ca: tls.cert, allowPrivate: true, timeoutMs: 2000 }, event.id);
      const got = receiver.received.at(-1)!;
      expect(JSON.parse(got.body)).toMatchObject({ verification_id: id, status: 'approved', reason: null });
      expect(got.headers['x-hmac-signature']).toBe(
        createHmac('sha256', w.liveSecret).update(`${got.headers['x-timestamp']}.${got.body}`).digest('hex'),
      );
    } finally {
      await updateWorkspaceSettings(getDb(), w.workspace.id, { webhook_url: null });
      await receiver.close();
    }
  });

  it('age_over_18 false declines with age_below_threshold', async () => {
    const id = await consentedVerification(w, w.liveSecret);
    const { answer, body } = await proof(id, protocol, {
      cred: await issuer.issue({ elements: { age_over_18: false } }),
    });
    const r = await sendAnswer(w, w.liveSecret, id, body);
    expect([
      r.status,
      r.json.data.status,
      r.json.data.reason,
      r.json.data.result.decision,
      r.json.data.result.wallet.value,
    ]).toEqual([200, 'declined', 'age_below_threshold', 'fail', false]);
    await auth0Agrees(answer);
    const [event] = await getDb().select().from(webhookEvents).where(eq(webhookEvents.verificationId, id));
    expect([event.status, JSON.parse(event.body).reason]).toEqual(['declined', 'age_below_threshold']);
  });

  it('every refusal is 422 WALLET_RESPONSE_INVALID with its reason, the verification unchanged and still open, the attempt in the timeline', async () => {
    const rogue = await makeIaca({ name: 'Utopia IACA' });
    const refusals: [string, WalletRefusalSetup][] = [
      ['digest_mismatch', async (id) => (await proof(id, protocol, { bad: { tamperValue: true } })).body],
      [
        'untrusted_issuer',
        async (id) => (await proof(id, protocol, { cred: await issueMdl(await makeSigner(rogue)) })).body,
      ],
      [
        'expired',
        async (id) =>
          (
            await proof(id, protocol, {
              cred: await issuer.issue({
                signed: new Date(Date.now() - DAY / 2),
                validUntil: new Date(Date.now() - 60_000),
              }),
            })
          ).body,
      ],
      [
        'transcript_mismatch',
        async (id) => (await proof(id, protocol, { bad: { transcriptOrigin: 'https://evil.example' } })).body,
      ],
      [
        'transcript_mismatch',
        async (id) => {
          const other = await proof(id, protocol);
          const mine = await askWallet(w, w.liveSecret, id, protocol);
          return { ...other.body, request_id: mine.json.data.id };
        },
      ],
      ['malformed', async (id) => (await proof(id, protocol, { bad: { alsoDisclose: ['given_name'] } })).body],
      [
        'malformed',
        async (id) => ({
          request_id: (await askWallet(w, w.liveSecret, id, protocol)).json.data.id,
          protocol,
          data: { response: 'garbage' },
        }),
      ],
      ['claim_missing', async (id) => (await proof(id, protocol, { bad: { omitElement: true } })).body],
    ];
    const admin = await makeAdmin({ operator: true });
    for (const [reason, setup] of refusals) {
      const id = await consentedVerification(w, w.liveSecret);
      const before = await rowOf(id);
      const body = await setup(id);
      const counted = await counterValue('wallet_responses_total', { protocol, outcome: reason });
      const r = await sendAnswer(w, w.liveSecret, id, body);
      expect([reason, r.status, r.json.error?.code, r.json.error?.details?.reason]).toEqual([
        reason,
        422,
        'WALLET_RESPONSE_INVALID',
        reason,
      ]);
      expect([reason, await counterValue('wallet_responses_total', { protocol, outcome: reason })]).toEqual([
        reason,
        counted + 1,
      ]);
      const after = await rowOf(id);
      expect(after).toEqual(before);
      expect(after.status).toBe('created');
      const events = timeline(await loadCase(getDb(), admin, id)).events.map((e) => e.title);
      expect(events).toContain(`Wallet proof refused (${protocol}): ${reason}`);
    }
  });

  it('the same response twice: the second is replayed, whether the first decided or not', async () => {
    const id = await consentedVerification(w, w.liveSecret);
    const { body } = await proof(id, protocol);
    expect((await sendAnswer(w, w.liveSecret, id, body)).json.data.status).toBe('approved');
    const decided = await rowOf(id);
    const again = await sendAnswer(w, w.liveSecret, id, body);
    expect([again.status, again.json.error.code, again.json.error.details.reason]).toEqual([
      422,
      'WALLET_RESPONSE_INVALID',
      'replayed',
    ]);
    expect(await rowOf(id)).toEqual(decided);

    // Still open: a refused response spends its request too.
    const open = await consentedVerification(w, w.liveSecret);
    const bad = await proof(open, protocol, { bad: { tamperValue: true } });
    expect((await sendAnswer(w, w.liveSecret, open, bad.body)).json.error.details.reason).toBe('digest_mismatch');
    const twice = await sendAnswer(w, w.liveSecret, open, bad.body);
    expect([twice.json.error.details.reason, (await rowOf(open)).status]).toEqual(['replayed', 'created']);
  });

  it('test mode: a valid proof is one attempt and goes to review, where a person decides', async () => {
    const id = await consentedVerification(w, w.testSecret);
    const { body } = await proof(id, protocol, { secret: w.testSecret });
    const r = await sendAnswer(w, w.testSecret, id, body);
    expect(r.json.data).toMatchObject({
      status: 'review',
      attempts_remaining: 4,
      result: { decision: 'pass', age_source: 'wallet', wallet: { value: true } },
    });
    const [event] = await getDb().select().from(webhookEvents).where(eq(webhookEvents.verificationId, id));
    expect(event.status).toBe('review');
  });
});

type WalletRefusalSetup = (id: string) => Promise<object>;

describe('wallet proof rules', () => {
  it('consent first (403), only in created, started or resubmission_requested (409), never for KYC (409)', async () => {
    const c = await call(createRoute, {
      method: 'POST',
      path: '/v1/verifications',
      body: {},
      apiKey: w.apiKey,
      secret: w.liveSecret,
    });
    const noConsent = c.json.data.id;
    expect((await askWallet(w, w.liveSecret, noConsent, 'org-iso-mdoc')).json.error.code).toBe('CONSENT_REQUIRED');
    expect(
      (await sendAnswer(w, w.liveSecret, noConsent, { request_id: 'wrq_x', protocol: 'org-iso-mdoc', data: {} })).json
        .error.code,
    ).toBe('CONSENT_REQUIRED');

    const id = await consentedVerification(w, w.liveSecret);
    const pending = await proof(id, 'org-iso-mdoc');
    const done = await proof(id, 'openid4vp-v1-unsigned');
    expect((await sendAnswer(w, w.liveSecret, id, done.body)).json.data.status).toBe('approved');
    const late = await askWallet(w, w.liveSecret, id, 'org-iso-mdoc');
    expect([late.status, late.json.error.code, late.json.error.details.status]).toEqual([
      409,
      'INVALID_STATUS',
      'approved',
    ]);
    // A response to a request made before the decision: the verification is decided, nothing changes.
    const r = await sendAnswer(w, w.liveSecret, id, pending.body);
    expect([r.status, r.json.error.code]).toEqual([409, 'INVALID_STATUS']);

    const kyc = await makeWorkspace({}, { flow: 'kyc' });
    const kycId = await consentedVerification(kyc, kyc.liveSecret);
    const k = await askWallet(kyc, kyc.liveSecret, kycId, 'openid4vp-v1-unsigned');
    expect([k.status, k.json.error.code, k.json.error.details.flow]).toEqual([409, 'INVALID_STATUS', 'kyc']);
  });

  it('validates the request: protocol, an origin (https, or http://localhost), nothing else', async () => {
    const id = await consentedVerification(w, w.liveSecret);
    for (const [body, field] of [
      [{ protocol: 'openid4vp', origin: ORIGIN }, 'protocol'],
      [{ protocol: 'org-iso-mdoc', origin: 'http://shop.example' }, 'origin'],
      [{ protocol: 'org-iso-mdoc', origin: 'https://shop.example/path' }, 'origin'],
      [{ protocol: 'org-iso-mdoc' }, 'origin'],
      [{ protocol: 'org-iso-mdoc', origin: `https://${'a'.repeat(5000)}.example` }, 'origin'],
      [{ protocol: 'org-iso-mdoc', origin: ORIGIN, extra: 1 }, 'extra'],
    ] as const) {
      const r = await call(requestRoute, {
        method: 'POST',
        path: `/v1/verifications/${id}/wallet-requests`,
        body,
        apiKey: w.apiKey,
        secret: w.liveSecret,
        params: { id },
      });
      expect([r.status, r.json.error.code, Object.keys(r.json.error.details.fields)]).toEqual([
        422,
        'VALIDATION_ERROR',
        [field],
      ]);
    }
    // Text Postgres cannot store (a NUL, an unpaired surrogate) is refused where it enters, naming the field, in the
    // error envelope (docs/api.md "Errors"), on both doors; the verification unchanged.
    const before = await rowOf(id);
    const c = await call(createRoute, {
      method: 'POST',
      path: '/v1/verifications',
      body: {},
      apiKey: w.apiKey,
      secret: w.liveSecret,
    });
    const token = new URL(c.json.data.url).pathname.split('/').pop()!;
    for (const [route, path, params, body, field] of [
      [
        requestRoute,
        `/v1/verifications/${id}/wallet-requests`,
        { id },
        { protocol: 'org-iso-mdoc', origin: 'https://shop.example\u0000' },
        'origin',
      ],
      [
        responseRoute,
        `/v1/verifications/${id}/wallet-responses`,
        { id },
        { request_id: 'wrq_\ud800', protocol: 'org-iso-mdoc', data: {} },
        'request_id',
      ],
      [
        responseRoute,
        `/v1/verifications/${id}/wallet-responses`,
        { id },
        { request_id: 'wrq_x', protocol: 'org-iso-mdoc', data: { response: 'ab\udc00' } },
        'data.response',
      ],
      [
        captureRequestRoute,
        `/api/capture/${token}/wallet-requests`,
        { token },
        { protocol: 'org-iso-mdoc\u0000' },
        'protocol',
      ],
      [
        captureResponseRoute,
        `/api/capture/${token}/wallet-responses`,
        { token },
        { request_id: 'wrq_x', protocol: 'org-iso-mdoc', data: { '\ud800': 1 } },
        'data',
      ],
    ] as const) {
      const auth = route === requestRoute || route === responseRoute ? { apiKey: w.apiKey, secret: w.liveSecret } : {};
      // JSON.stringify writes them as the escapes a client sends: "\u0000", "\ud800".
      const r = await call(route, { method: 'POST', path, body, params, ...auth });
      expect([
        path.split('/').pop(),
        r.status,
        r.json.error?.code,
        Object.keys(r.json.error?.details?.fields ?? {}),
      ]).toEqual([path.split('/').pop(), 422, 'VALIDATION_ERROR', [field]]);
    }
    expect(await rowOf(id)).toEqual(before);
    expect((await askWallet(w, w.liveSecret, id, 'org-iso-mdoc', 'http://localhost:3000')).status).toBe(201);
    const missing = await sendAnswer(w, w.liveSecret, id, { request_id: 'x', protocol: 'org-iso-mdoc' });
    expect([missing.status, Object.keys(missing.json.error.details.fields)]).toEqual([422, ['data']]);
    // Another verification's request, or none: 404.
    const other = await consentedVerification(w, w.liveSecret);
    const theirs = await proof(other, 'org-iso-mdoc');
    expect((await sendAnswer(w, w.liveSecret, id, theirs.body)).json.error.code).toBe('NOT_FOUND');
    // The other mode's key does not see the verification.
    expect((await askWallet(w, w.testSecret, id, 'org-iso-mdoc')).json.error.code).toBe('NOT_FOUND');
  });

  it('a request expires after 5 minutes; a response then is refused as expired', async () => {
    const id = await consentedVerification(w, w.liveSecret);
    const { body } = await proof(id, 'openid4vp-v1-unsigned');
    const later = new Date(Date.now() + 5 * 60_000 + 1000);
    await expect(
      submitWalletResponse(getDb(), {
        workspaceId: w.workspace.id,
        mode: 'live',
        verificationId: id,
        walletRequestId: body.request_id,
        protocol: body.protocol,
        data: body.data,
        actor: 'test',
        now: later,
      }),
    ).rejects.toMatchObject({ code: 'WALLET_RESPONSE_INVALID', details: { reason: 'expired' } });
    expect((await rowOf(id)).status).toBe('created');
  });

  it('from started and resubmission_requested too; a proof after four attempts is the fifth', async () => {
    for (const status of ['started', 'resubmission_requested'] as const) {
      const id = await consentedVerification(w, w.liveSecret);
      await getDb()
        .update(verifications)
        .set({ status, attemptsUsed: 4, reason: status === 'resubmission_requested' ? 'selfie_quality' : null })
        .where(eq(verifications.id, id));
      const r = await sendAnswer(w, w.liveSecret, id, (await proof(id, 'org-iso-mdoc')).body);
      expect([r.json.data.status, r.json.data.reason, r.json.data.attempts_remaining]).toEqual(['approved', null, 0]);
    }
  });

  it('two answers racing for one request: one decides, the other is replayed', async () => {
    const id = await consentedVerification(w, w.liveSecret);
    const { body } = await proof(id, 'org-iso-mdoc');
    const [a, b] = await Promise.all([sendAnswer(w, w.liveSecret, id, body), sendAnswer(w, w.liveSecret, id, body)]);
    expect([a.status, b.status].sort()).toEqual([200, 422]);
    expect([a, b].find((x) => x.status === 422)!.json.error.details.reason).toBe('replayed');
    expect((await rowOf(id)).attemptsUsed).toBe(1);
  });

  it("trusts the roots of its workspace and of every workspace, not another workspace's", async () => {
    const other = await makeWorkspace({ rate_limit_per_minute: 100_000 });
    const id = await consentedVerification(other, other.liveSecret);
    const r = await sendAnswer(other, other.liveSecret, id, (await proof(id, 'org-iso-mdoc', { ws: other })).body);
    expect(r.json.error.details.reason).toBe('untrusted_issuer');

    const global = await testIssuer({ country: 'AQ' });
    await addTrustAnchors(getDb(), { pem: global.ca.pem, actor: 'operator' });
    const id2 = await consentedVerification(other, other.liveSecret);
    const ok = await sendAnswer(
      other,
      other.liveSecret,
      id2,
      (await proof(id2, 'org-iso-mdoc', { ws: other, cred: await global.issue() })).body,
    );
    expect([ok.status, ok.json.data.result.wallet.issuer.country]).toEqual([200, 'AQ']);
  });

  it("the hosted page: its requests are bound to the service's own origin, and a proof decides", async () => {
    const c = await call(createRoute, {
      method: 'POST',
      path: '/v1/verifications',
      body: {},
      apiKey: w.apiKey,
      secret: w.liveSecret,
    });
    const token = new URL(c.json.data.url).pathname.split('/').pop()!;
    const id = c.json.data.id;
    // Consent through /v1 (the page's own consent step is tested with the page).
    const active = await ensureConsent();
    await call(consentRoute, {
      method: 'POST',
      path: `/v1/verifications/${id}/consent`,
      body: { consent_version_id: active.id, text_sha256: active.textSha256 },
      apiKey: w.apiKey,
      secret: w.liveSecret,
      params: { id },
    });
    const own = new URL(env().BASE_URL).origin;
    const req = await call(captureRequestRoute, {
      method: 'POST',
      path: `/api/capture/${token}/wallet-requests`,
      body: { protocol: 'org-iso-mdoc' },
      params: { token },
    });
    expect(req.status).toBe(201);
    const [row] = await getDb().select().from(walletRequests).where(eq(walletRequests.id, req.json.data.id));
    expect(row.origin).toBe(own);
    // The page may not name another origin.
    const named = await call(captureRequestRoute, {
      method: 'POST',
      path: `/api/capture/${token}/wallet-requests`,
      body: { protocol: 'org-iso-mdoc', origin: ORIGIN },
      params: { token },
    });
    expect([named.status, named.json.error.code]).toEqual([422, 'VALIDATION_ERROR']);
    const answer = await walletRespond(adult, 'org-iso-mdoc', req.json.data.data, own);
    const r = await call(captureResponseRoute, {
      method: 'POST',
      path: `/api/capture/${token}/wallet-responses`,
      body: { request_id: req.json.data.id, protocol: 'org-iso-mdoc', data: answer.data },
      params: { token },
    });
    expect([r.status, r.json.data.status]).toEqual([200, 'approved']);
  });

  it("stores nothing of the credential but the decision, the claim's value and the issuer", async () => {
    const id = await consentedVerification(w, w.liveSecret);
    const { answer, body } = await proof(id, 'openid4vp-v1-unsigned');
    await sendAnswer(w, w.liveSecret, id, body);
    const v = await rowOf(id);
    const requests = await getDb().select().from(walletRequests).where(eq(walletRequests.verificationId, id));
    const audits = await getDb().select().from(auditLog).where(eq(auditLog.verificationId, id));
    const events = await getDb().select().from(webhookEvents).where(eq(webhookEvents.verificationId, id));
    // In the clear: the decision and the claim, nothing else of the result.
    expect(v.result).toEqual({
      decision: 'pass',
      threshold: 18,
      age_source: 'wallet',
      wallet: { protocol: 'openid4vp-v1-unsigned', element: 'age_over_18', value: true },
    });
    // The issuer is sealed with the result's personal fields (and read back by GET, above).
    expect(v.resultSealed).toBeInstanceOf(Buffer);
    // The request spent its one-time key.
    expect(requests.map((r) => [r.usedAt instanceof Date, r.privateKeySealed, r.outcome])).toEqual([
      [true, null, 'verified'],
    ]);
    // No trace of anything the credential holds but the claim: not the other elements the mDL has, not its keys or
    // certificates, not the presentation.
    const stored = JSON.stringify([v, requests, audits, events], (_k, x) =>
      x?.type === 'Buffer' ? Buffer.from(x.data).toString('base64') : x,
    );
    const cert = Buffer.from(issuer.signer.cert.rawData);
    const deviceJwk = await crypto.subtle.exportKey('jwk', adult.deviceKey.publicKey);
    for (const secret of [
      'Jane',
      'Doe',
      '1990-01-01',
      'age_over_21',
      'Utopia',
      'UT"',
      cert.toString('base64').slice(20, 60),
      cert.toString('hex').slice(40, 80),
      deviceJwk.x!,
      Buffer.from(answer.deviceResponse).toString('base64url').slice(0, 40),
      body.data.response.slice(0, 40),
    ]) {
      expect([secret, stored.includes(secret)]).toEqual([secret, false]);
    }
  });
});

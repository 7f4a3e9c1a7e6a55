/**
 * The verification of a wallet's response, without a database: a test IACA, document signer and mDL made here,
 * a test wallet answering both protocols, and every way a response must be refused. @auth0/mdl, a second,
 * independent verifier, must agree with ours on the responses we accept.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Verifier as Auth0Verifier } from '@auth0/mdl';
import {
  ageElement,
  annexCEncryptionInfo,
  newEncryptionKey,
  requestData,
  WALLET_PROTOCOLS,
  type RequestSpec,
  type WalletProtocol,
} from './protocol';
import { verifyWalletResponse, WalletRefusal, type WalletRefusalReason } from './verify';
import { cborEncode, DataItem, x509 } from './mdoc';
import {
  issueMdl,
  makeIaca,
  makeSigner,
  testIssuer,
  walletRespond,
  type Credential,
  type Misbehaviour,
  type TestCa,
  type TestSigner,
} from '@/test/helpers/wallet';

const ORIGIN = 'https://shop.example';
const DAY = 86_400_000;

async function newSpec(protocol: WalletProtocol, element = 'age_over_18'): Promise<RequestSpec> {
  const key = await newEncryptionKey(`wrq_${Math.random().toString(36).slice(2)}`);
  const nonce = crypto.getRandomValues(new Uint8Array(32));
  return {
    protocol,
    origin: ORIGIN,
    nonce: Buffer.from(nonce).toString('base64url'),
    element,
    key,
    encryptionInfo: protocol === 'org-iso-mdoc' ? annexCEncryptionInfo(nonce, key.publicJwk) : null,
  };
}

let ca: TestCa;
let signer: TestSigner;
let credential: Credential;
let anchors: x509.X509Certificate[];

beforeAll(async () => {
  ({ ca, signer } = await testIssuer());
  credential = await issueMdl(signer);
  anchors = [ca.cert];
});

async function answerAndVerify(
  protocol: WalletProtocol,
  o: {
    bad?: Misbehaviour;
    cred?: Credential;
    anchors?: x509.X509Certificate[];
    spec?: RequestSpec;
    answerFor?: RequestSpec;
    now?: Date;
  } = {},
) {
  const spec = o.spec ?? (await newSpec(protocol));
  const answer = await walletRespond(
    o.cred ?? credential,
    protocol,
    requestData(o.answerFor ?? spec) as Record<string, unknown>,
    ORIGIN,
    o.bad,
  );
  const result = await verifyWalletResponse({
    spec,
    data: answer.data,
    anchors: o.anchors ?? anchors,
    now: o.now ?? new Date(),
  }).catch((e: unknown) => e);
  return { answer, result };
}

const reasonOf = (r: unknown) => (r instanceof WalletRefusal ? r.reason : r);
const tag24 = (b: Uint8Array) => cborEncode(DataItem.fromBuffer(b));

describe.each(WALLET_PROTOCOLS)('%s', (protocol) => {
  it('a valid proof gives the claim and the issuer; @auth0/mdl agrees', async () => {
    const { answer, result } = await answerAndVerify(protocol);
    expect(result).toEqual({
      element: 'age_over_18',
      value: true,
      issuer: { country: 'UT', authority: 'Utopia Department of Motor Vehicles' },
      docType: 'org.iso.18013.5.1.mDL',
    });
    const mdocOk = await new Auth0Verifier([ca.pem]).verify(answer.deviceResponse, {
      encodedSessionTranscript: tag24(answer.transcript),
    });
    expect(mdocOk.documents[0].getIssuerNameSpace('org.iso.18013.5.1')).toEqual({ age_over_18: true });
  });

  it('a wallet without age_over_18 answers with the nearest that decides it (ISO/IEC 18013-5 7.2.5)', async () => {
    for (const [elements, expected] of [
      [
        { age_over_16: true, age_over_21: true, age_over_65: false },
        { element: 'age_over_21', value: true },
      ],
      [
        { age_over_13: true, age_over_16: false, age_over_21: false },
        { element: 'age_over_16', value: false },
      ],
    ] as const) {
      const { answer, result } = await answerAndVerify(protocol, { cred: await issueMdl(signer, { elements }) });
      expect(result).toMatchObject(expected);
      await expect(
        new Auth0Verifier([ca.pem]).verify(answer.deviceResponse, {
          encodedSessionTranscript: tag24(answer.transcript),
        }),
      ).resolves.toBeDefined();
    }
  });

  it('age_over_NN false is a valid proof of false', async () => {
    const under = await issueMdl(signer, { elements: { age_over_18: false } });
    const { answer, result } = await answerAndVerify(protocol, { cred: under });
    expect(result).toMatchObject({ value: false });
    await expect(
      new Auth0Verifier([ca.pem]).verify(answer.deviceResponse, { encodedSessionTranscript: tag24(answer.transcript) }),
    ).resolves.toBeDefined();
  });

  const cases: [string, WalletRefusalReason, () => Promise<Parameters<typeof answerAndVerify>[1]>][] = [
    ['a tampered element', 'digest_mismatch', async () => ({ bad: { tamperValue: true } })],
    ['an MSO altered after it was signed', 'invalid_signature', async () => ({ bad: { alterMso: true } })],
    ['an MSO signed again by another key', 'invalid_signature', async () => ({ bad: { resignMso: true } })],
    [
      'an MSO altered and signed again by another key',
      'invalid_signature',
      async () => ({ bad: { alterMso: true, resignMso: true } }),
    ],
    [
      'an MSO whose signed time is in the future',
      'expired',
      async () => ({
        cred: await issueMdl(signer, { signed: new Date(Date.now() + DAY), validFrom: new Date(Date.now() - 60_000) }),
      }),
    ],
    [
      'a signer under a rogue root of the same name',
      'untrusted_issuer',
      async () => {
        const rogue = await makeIaca({ name: 'Utopia IACA' });
        expect(rogue.cert.subject).toBe(ca.cert.subject);
        return { cred: await issueMdl(await makeSigner(rogue)) };
      },
    ],
    ['no trusted root at all', 'untrusted_issuer', async () => ({ anchors: [] })],
    [
      'an expired MSO',
      'expired',
      async () => ({
        cred: await issueMdl(signer, {
          signed: new Date(Date.now() - DAY / 2),
          validUntil: new Date(Date.now() - 60_000),
        }),
      }),
    ],
    [
      'an MSO signed before its signer certificate was valid',
      'expired',
      async () => ({ cred: await issueMdl(signer, { signed: new Date(Date.now() - 10 * DAY) }) }),
    ],
    [
      'an MSO not yet valid',
      'expired',
      async () => ({ cred: await issueMdl(signer, { validFrom: new Date(Date.now() + 60_000) }) }),
    ],
    [
      'an expired document signer certificate',
      'expired',
      async () => {
        const old = await makeSigner(ca, {
          notBefore: new Date(Date.now() - 20 * DAY),
          notAfter: new Date(Date.now() - DAY),
        });
        return { cred: await issueMdl(old, { signed: new Date(Date.now() - 10 * DAY) }) };
      },
    ],
    [
      'a signer certificate that is not a document signer',
      'untrusted_issuer',
      async () => ({ cred: await issueMdl(await makeSigner(ca, { eku: '1.3.6.1.5.5.7.3.1' })) }),
    ],
    [
      'a signer of another country than its root',
      'untrusted_issuer',
      async () => ({ cred: await issueMdl(await makeSigner(ca, { country: 'FR' })) }),
    ],
    [
      'a response for another origin',
      'transcript_mismatch',
      async () => ({ bad: { transcriptOrigin: 'https://evil.example' } }),
    ],
    ['a response for another request', 'transcript_mismatch', async () => ({ answerFor: await newSpec(protocol) })],
    ['an element not asked for', 'malformed', async () => ({ bad: { alsoDisclose: ['given_name'] } })],
    ['the element left out', 'claim_missing', async () => ({ bad: { omitElement: true } })],
    [
      'an age_over_NN that does not answer the one asked',
      'malformed',
      async () => ({
        cred: await issueMdl(signer, { elements: { age_over_18: true, age_over_21: false } }),
        bad: { answerWith: 'age_over_21' },
      }),
    ],
    ['two age_over_NN', 'malformed', async () => ({ bad: { alsoDisclose: ['age_over_21'] } })],
  ];
  for (const [what, reason, setup] of cases) {
    it(`refuses ${what}: ${reason}`, async () => {
      const { result } = await answerAndVerify(protocol, await setup());
      expect([reasonOf(result), (result as Error).message]).toEqual([reason, expect.any(String)]);
    });
  }

  it('refuses garbage as malformed', async () => {
    const spec = await newSpec(protocol);
    for (const data of [
      null,
      'x',
      {},
      { response: '' },
      { response: 'not base64url!' },
      { response: 'AAAA' },
      { response: 'a.b.c.d.e' },
      { response: 'e30.e30.e30.e30.e30' },
      [1, 2],
    ]) {
      const r = await verifyWalletResponse({ spec, data, anchors, now: new Date() }).catch((e: unknown) => e);
      expect([reasonOf(r), data]).toEqual(['malformed', data]);
    }
  });
});

describe('request data', () => {
  it('asks only for age_over_NN of an mDL, not retained, with a fresh key and nonce', async () => {
    const a = requestData(await newSpec('openid4vp-v1-unsigned', 'age_over_21')) as ReturnType<typeof requestData> &
      Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    const b = requestData(await newSpec('openid4vp-v1-unsigned', 'age_over_21')) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(a).toMatchObject({
      response_type: 'vp_token',
      response_mode: 'dc_api.jwt',
      dcql_query: {
        credentials: [
          {
            format: 'mso_mdoc',
            meta: { doctype_value: 'org.iso.18013.5.1.mDL' },
            claims: [{ path: ['org.iso.18013.5.1', 'age_over_21'], intent_to_retain: false }],
          },
        ],
      },
      client_metadata: {
        jwks: { keys: [{ kty: 'EC', crv: 'P-256', use: 'enc', alg: 'ECDH-ES' }] },
        encrypted_response_enc_values_supported: ['A128GCM'],
      },
    });
    expect(a.dcql_query.credentials[0].claims).toHaveLength(1);
    expect(a.client_metadata.jwks.keys[0].d).toBeUndefined();
    expect(a.nonce).not.toBe(b.nonce);
    expect(a.client_metadata.jwks.keys[0].x).not.toBe(b.client_metadata.jwks.keys[0].x);
  });

  it('age_over_NN has two digits and stops at 99', () => {
    expect([ageElement(18), ageElement(5), ageElement(99), ageElement(100)]).toEqual([
      'age_over_18',
      'age_over_05',
      'age_over_99',
      null,
    ]);
  });

  it("loading @owf/mdoc leaves zod's own error messages in place", () => {
    expect(z.config().customError).toBeUndefined();
    expect(z.string().safeParse(1).error!.issues[0].message).toBe('Invalid input: expected string, received number');
  });
});

/**
 * A test wallet and its issuer, made at test time (docs/wallet.md "Testing without a wallet"): an IACA root, a
 * document signer under it, an mDL issued with @owf/mdoc, and a wallet that answers a request's `data` the way a
 * phone's wallet does over the Digital Credentials API: it builds the session transcript from the request and the
 * page's origin, signs a DeviceResponse with its device key, and encrypts it (JWE for OpenID4VP, HPKE for Annex C).
 * Options make it misbehave in each way the service must refuse. Used by the integration tests, the Playwright
 * test (through page.exposeFunction) and the benchmark.
 */
import { CompactEncrypt, importJWK } from 'jose';
import { Aes128Gcm, CipherSuite, DhkemP256HkdfSha256, HkdfSha256 } from '@hpke/core';
import {
  CoseKey,
  DataItem,
  cborDecode,
  cborEncode,
  mdoc,
  mdocContext,
  x509,
  SessionTranscript,
} from '@/lib/domain/wallet/mdoc';
import {
  DcApiHandover,
  DCQL_ID,
  jwkThumbprint,
  MDL_DOCTYPE,
  MDL_NAMESPACE,
  type WalletProtocol,
} from '@/lib/domain/wallet/protocol';
import { MDL_DS_EKU } from '@/lib/domain/wallet/x509';

const EC = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY = 86_400_000;

export type TestCa = { cert: x509.X509Certificate; pem: string; keys: CryptoKeyPair; name: string };
export type TestSigner = { cert: x509.X509Certificate; keys: CryptoKeyPair; ca: TestCa };

const serial = () =>
  Buffer.from(crypto.getRandomValues(new Uint8Array(8)))
    .toString('hex')
    .replace(/^[89a-f]/, '1');

/** A self-signed IACA root. */
export async function makeIaca(
  opts: { name?: string; country?: string; notBefore?: Date; notAfter?: Date } = {},
): Promise<TestCa> {
  const keys = (await crypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as CryptoKeyPair;
  const name = `C=${opts.country ?? 'UT'}, O=Utopia Department of Motor Vehicles, CN=${opts.name ?? 'Utopia IACA'}`;
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name,
    notBefore: opts.notBefore ?? new Date(Date.now() - 30 * DAY),
    notAfter: opts.notAfter ?? new Date(Date.now() + 3650 * DAY),
    signingAlgorithm: EC,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { cert, pem: cert.toString('pem'), keys, name };
}

/** A document signer certificate issued by `ca`. */
export async function makeSigner(
  ca: TestCa,
  opts: { country?: string; notBefore?: Date; notAfter?: Date; eku?: string } = {},
): Promise<TestSigner> {
  const keys = (await crypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: `C=${opts.country ?? 'UT'}, ST=Capital District, O=Utopia Department of Motor Vehicles, CN=Utopia DS`,
    issuer: ca.cert.subject,
    notBefore: opts.notBefore ?? new Date(Date.now() - DAY),
    notAfter: opts.notAfter ?? new Date(Date.now() + 365 * DAY),
    signingAlgorithm: EC,
    publicKey: keys.publicKey,
    signingKey: ca.keys.privateKey,
    extensions: [
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([opts.eku ?? MDL_DS_EKU], true),
      await x509.AuthorityKeyIdentifierExtension.create(ca.keys.publicKey),
    ],
  });
  return { cert, keys, ca };
}

const jwkOf = async (k: CryptoKey) => (await crypto.subtle.exportKey('jwk', k)) as Record<string, unknown>;
/** The COSE key of a WebCrypto key; `alg` set, or the COSE protected header of what it signs stays empty. */
const coseKey = async (k: CryptoKey) => {
  const jwk = await jwkOf(k);
  return CoseKey.fromJwk({
    kty: jwk.kty,
    crv: jwk.crv,
    x: jwk.x,
    y: jwk.y,
    ...(jwk.d ? { d: jwk.d } : {}),
    alg: 'ES256',
  });
};

export type Credential = { issuerSigned: mdoc.IssuerSigned; deviceKey: CryptoKeyPair };

/** An mDL with the given elements (of the mDL namespace) and MSO validity. */
export async function issueMdl(
  signer: TestSigner,
  opts: { elements?: Record<string, unknown>; validFrom?: Date; validUntil?: Date; signed?: Date } = {},
): Promise<Credential> {
  const deviceKey = (await crypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as CryptoKeyPair;
  const signed = opts.signed ?? new Date(Date.now() - 60_000);
  const issuer = new mdoc.Issuer(MDL_DOCTYPE, mdocContext);
  issuer.addIssuerNamespace(
    MDL_NAMESPACE,
    opts.elements ?? {
      family_name: 'Doe',
      given_name: 'Jane',
      birth_date: '1990-01-01',
      age_over_18: true,
      age_over_21: true,
    },
  );
  const issuerSigned = await issuer.sign({
    signingKey: await coseKey(signer.keys.privateKey),
    algorithm: mdoc.SignatureAlgorithm.ES256,
    digestAlgorithm: 'SHA-256',
    validityInfo: {
      signed,
      validFrom: opts.validFrom ?? signed,
      validUntil: opts.validUntil ?? new Date(Date.now() + 30 * DAY),
    },
    deviceKeyInfo: { deviceKey: mdoc.DeviceKey.fromJwk((await coseKey(deviceKey.publicKey)).jwk) },
    certificates: [new Uint8Array(signer.cert.rawData)],
  });
  return { issuerSigned, deviceKey };
}

export type Misbehaviour = {
  /** Sign the transcript of this origin instead of the page's (a response made for another site). */
  transcriptOrigin?: string;
  /** Disclose these elements too (a wallet that gives more than was asked). */
  alsoDisclose?: string[];
  /** Flip the disclosed element's value after issuance (the digest no longer matches). */
  tamperValue?: boolean;
  /** Leave the asked element out. */
  omitElement?: boolean;
  /** Disclose this element in place of the one asked (a wallet's ISO 18013-5 7.2.5 substitute, or a wrong one). */
  answerWith?: string;
  /** Change a byte of the signed MSO (a digest of another element) after the issuer signed it, keeping its signature. */
  alterMso?: boolean;
  /** Sign the MSO again with another key (not the signer certificate's), keeping the certificate. */
  resignMso?: boolean;
};

/** What a wallet answered: the DigitalCredential's data, and (for a second verifier) the plain DeviceResponse and transcript. */
export type WalletAnswer = {
  protocol: WalletProtocol;
  data: { response: string };
  deviceResponse: Uint8Array;
  transcript: Uint8Array;
};

const b64u = (b: Uint8Array) => Buffer.from(b).toString('base64url');

/** The element asked for, read from the request's data as a wallet reads it. */
function askedElement(protocol: WalletProtocol, data: Record<string, unknown>): string {
  if (protocol === 'openid4vp-v1-unsigned') {
    const q = (data.dcql_query as { credentials: { claims: { path: string[] }[] }[] }).credentials[0];
    return q.claims[0].path[1];
  }
  const req = mdoc.DeviceRequest.decode(new Uint8Array(Buffer.from(String(data.deviceRequest), 'base64url')));
  return [...req.docRequests[0].itemsRequest.namespaces.get(MDL_NAMESPACE)!.keys()][0];
}

/** Answers a request's `data` for a page at `origin`, as a wallet with `credential` would. */
export async function walletRespond(
  credential: Credential,
  protocol: WalletProtocol,
  data: Record<string, unknown>,
  origin: string,
  bad: Misbehaviour = {},
): Promise<WalletAnswer> {
  const transcriptOrigin = bad.transcriptOrigin ?? origin;
  const element = askedElement(protocol, data);
  let transcript: mdoc.SessionTranscript;
  let encryptTo: Record<string, unknown>;
  if (protocol === 'openid4vp-v1-unsigned') {
    encryptTo = (data.client_metadata as { jwks: { keys: Record<string, unknown>[] } }).jwks.keys[0];
    transcript = await SessionTranscript.forOid4VpDcApi(
      {
        origin: transcriptOrigin,
        nonce: String(data.nonce),
        jwkThumbprint: await jwkThumbprint(encryptTo as JsonWebKey),
      },
      mdocContext,
    );
  } else {
    const info = cborDecode(new Uint8Array(Buffer.from(String(data.encryptionInfo), 'base64url'))) as [
      string,
      Map<string, unknown>,
    ];
    const k = info[1].get('recipientPublicKey') as Map<number, Uint8Array>;
    encryptTo = { kty: 'EC', crv: 'P-256', x: b64u(k.get(-2)!), y: b64u(k.get(-3)!) };
    const hash = new Uint8Array(
      await crypto.subtle.digest(
        'SHA-256',
        cborEncode([String(data.encryptionInfo), transcriptOrigin]) as BufferSource,
      ),
    );
    transcript = SessionTranscript.create({
      handover: (
        DcApiHandover as unknown as { fromDecodedStructure(h: Uint8Array): mdoc.QrHandover }
      ).fromDecodedStructure(hash),
    });
  }

  const asked = bad.omitElement ? [] : [bad.answerWith ?? element, ...(bad.alsoDisclose ?? [])];
  const deviceRequest = mdoc.DeviceRequest.create({
    docRequests: [
      mdoc.DocRequest.create({
        itemsRequest: mdoc.ItemsRequest.create({
          docType: MDL_DOCTYPE,
          namespaces: { [MDL_NAMESPACE]: Object.fromEntries(asked.map((e) => [e, false])) },
        }),
      }),
    ],
  });
  const response = await mdoc.Holder.createDeviceResponseForDeviceRequest(
    {
      deviceRequest,
      sessionTranscript: transcript,
      issuerSigned: [credential.issuerSigned],
      signature: { signingKey: await coseKey(credential.deviceKey.privateKey) },
    },
    mdocContext,
  );
  let deviceResponse = response.encode();
  if (bad.tamperValue) deviceResponse = tamper(deviceResponse, element);
  if (bad.alterMso || bad.resignMso) deviceResponse = await reworkIssuerAuth(deviceResponse, element, bad);
  const transcriptBytes = transcript.encode();

  if (protocol === 'openid4vp-v1-unsigned') {
    const payload = new TextEncoder().encode(JSON.stringify({ vp_token: { [DCQL_ID]: [b64u(deviceResponse)] } }));
    const key = await importJWK({ kty: 'EC', crv: 'P-256', x: String(encryptTo.x), y: String(encryptTo.y) }, 'ECDH-ES');
    const jwe = await new CompactEncrypt(payload)
      .setProtectedHeader({ alg: 'ECDH-ES', enc: 'A128GCM', ...(encryptTo.kid ? { kid: String(encryptTo.kid) } : {}) })
      .encrypt(key);
    return { protocol, data: { response: jwe }, deviceResponse, transcript: transcriptBytes };
  }
  const suite = new CipherSuite({ kem: new DhkemP256HkdfSha256(), kdf: new HkdfSha256(), aead: new Aes128Gcm() });
  const recipientPublicKey = await suite.kem.importKey(
    'jwk',
    { kty: 'EC', crv: 'P-256', x: String(encryptTo.x), y: String(encryptTo.y) },
    true,
  );
  const sealed = await suite.seal(
    { recipientPublicKey, info: transcriptBytes.slice().buffer },
    deviceResponse.slice().buffer,
  );
  const encrypted = cborEncode([
    'dcapi',
    new Map<string, Uint8Array>([
      ['enc', new Uint8Array(sealed.enc)],
      ['cipherText', new Uint8Array(sealed.ct)],
    ]),
  ]);
  return { protocol, data: { response: b64u(encrypted) }, deviceResponse, transcript: transcriptBytes };
}

/** Flips the boolean value of `element` inside its IssuerSignedItem, keeping every signature as it was. */
function tamper(deviceResponse: Uint8Array, element: string): Uint8Array {
  const raw = cborDecode(deviceResponse, { unwrapTopLevelDataItem: false } as never) as Map<string, unknown>;
  const doc = (raw.get('documents') as Map<string, unknown>[])[0];
  const ns = (
    (doc.get('issuerSigned') as Map<string, unknown>).get('nameSpaces') as Map<string, InstanceType<typeof DataItem>[]>
  ).get(MDL_NAMESPACE)!;
  for (const [i, di] of ns.entries()) {
    const item = cborDecode(di.buffer, { unwrapTopLevelDataItem: false } as never) as Map<string, unknown>;
    if (item.get('elementIdentifier') !== element) continue;
    item.set('elementValue', !item.get('elementValue'));
    ns[i] = DataItem.fromBuffer(cborEncode(item));
  }
  return cborEncode(raw);
}

/**
 * The issuer's COSE_Sign1 over the MSO, reworked as a forger would: a byte of the payload changed in place (a
 * digest of an element other than the one disclosed, so the CBOR stays well-formed), and/or the signature made
 * again with a key of our own over the Sig_structure (RFC 9052 4.4), the signer's certificate left in x5chain.
 */
async function reworkIssuerAuth(deviceResponse: Uint8Array, disclosed: string, bad: Misbehaviour): Promise<Uint8Array> {
  const raw = cborDecode(deviceResponse, { unwrapTopLevelDataItem: false } as never) as Map<string, unknown>;
  const issuerSigned = (raw.get('documents') as Map<string, unknown>[])[0].get('issuerSigned') as Map<string, unknown>;
  const issuerAuth = issuerSigned.get('issuerAuth') as unknown[];
  const [protectedHeader, , payload] = issuerAuth as [Uint8Array, unknown, Uint8Array, Uint8Array];
  const bytes = new Uint8Array(payload);
  if (bad.alterMso) {
    const mso = cborDecode(
      (cborDecode(bytes, { unwrapTopLevelDataItem: false } as never) as InstanceType<typeof DataItem>).buffer,
      { unwrapTopLevelDataItem: false } as never,
    ) as Map<string, unknown>;
    const digests = (mso.get('valueDigests') as Map<string, Map<number, Uint8Array>>).get(MDL_NAMESPACE)!;
    const ns = (issuerSigned.get('nameSpaces') as Map<string, InstanceType<typeof DataItem>[]>).get(MDL_NAMESPACE)!;
    const disclosedId = ns
      .map((di) => cborDecode(di.buffer, { unwrapTopLevelDataItem: false } as never) as Map<string, unknown>)
      .find((i) => i.get('elementIdentifier') === disclosed)
      ?.get('digestID');
    const other = [...digests.entries()].find(([id]) => id !== disclosedId)![1];
    const at = Buffer.from(bytes).indexOf(Buffer.from(other));
    if (at < 0) throw new Error('the digest was not found in the MSO bytes');
    bytes[at] ^= 0xff;
  }
  issuerAuth[2] = bytes;
  if (bad.resignMso) {
    const forger = (await crypto.subtle.generateKey(EC, true, ['sign', 'verify'])) as CryptoKeyPair;
    const toBeSigned = cborEncode(['Signature1', protectedHeader, new Uint8Array(0), bytes]);
    issuerAuth[3] = new Uint8Array(
      await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, forger.privateKey, toBeSigned as BufferSource),
    );
  }
  return cborEncode(raw);
}

/** The complete test issuer: a root, a signer and a way to make credentials and answers in one call. */
export async function testIssuer(opts: { country?: string } = {}) {
  const ca = await makeIaca({ country: opts.country });
  const signer = await makeSigner(ca, { country: opts.country });
  return { ca, signer, issue: (o?: Parameters<typeof issueMdl>[1]) => issueMdl(signer, o) };
}

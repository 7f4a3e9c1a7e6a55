/**
 * A wallet's response, checked (docs/wallet.md "How a response is verified"). Pure: it takes the request as the
 * server stored it, the trusted roots and the time, and returns the claim's value and the issuer, or the reason of
 * the refusal. Every check works on the response's own bytes (the signed MSO, each disclosed element's encoding, the
 * signatures' protected headers): nothing is re-encoded before it is hashed or verified, so an issuer or wallet that
 * encodes CBOR differently is judged on what it signed.
 *
 * Order: decrypt (with the request's key; Annex C's HPKE binds the transcript itself) → parse → what is disclosed →
 * the signer's chain to a trusted root and every certificate's dates → the MSO's signature → its validity window →
 * each disclosed element's digest → the device signature over this request's session transcript.
 */
import { compactDecrypt, decodeProtectedHeader, importJWK } from 'jose';
import { Aes128Gcm, CipherSuite, DhkemP256HkdfSha256, HkdfSha256 } from '@hpke/core';
import { cborDecode, cborEncode, COSE_ECDSA, DataItem, ecJwk, mdoc, x509, type CoseAlg } from './mdoc';
import {
  DCQL_ID,
  MDL_DOCTYPE,
  MDL_NAMESPACE,
  RESPONSE_ENC,
  sessionTranscriptBytes,
  type RequestSpec,
} from './protocol';
import { evaluateChain, issuerOf } from './x509';

import type { WalletRefusalReason } from '../../core/observability/wallet-codes';
export type { WalletRefusalReason } from '../../core/observability/wallet-codes';

export class WalletRefusal extends Error {
  constructor(
    readonly reason: WalletRefusalReason,
    readonly detail: string,
  ) {
    super(`${reason}: ${detail}`);
  }
}

/**
 * What a valid response proved: the element the wallet disclosed (the one asked for, or its ISO substitute, which
 * answers the question asked with the same value) and its value, and the issuer.
 */
export type VerifiedClaim = {
  element: string;
  value: boolean;
  issuer: { country: string; authority: string };
  docType: string;
};

const refuse = (reason: WalletRefusalReason, detail: string): never => {
  throw new WalletRefusal(reason, detail);
};

type CborMap = Map<unknown, unknown>;
const isMap = (v: unknown): v is CborMap => v instanceof Map;
const isBytes = (v: unknown): v is Uint8Array => v instanceof Uint8Array;
const asMap = (v: unknown, what: string): CborMap => (isMap(v) ? v : refuse('malformed', `${what} is not a CBOR map`));
const asBytes = (v: unknown, what: string): Uint8Array =>
  isBytes(v) ? v : refuse('malformed', `${what} is not a byte string`);
const asDataItem = (v: unknown, what: string): InstanceType<typeof DataItem> =>
  v instanceof DataItem ? v : refuse('malformed', `${what} is not an embedded CBOR item (tag 24)`);

function decode(bytes: Uint8Array, what: string): unknown {
  try {
    return cborDecode(bytes, { unwrapTopLevelDataItem: false } as never);
  } catch {
    return refuse('malformed', `${what} is not valid CBOR`);
  }
}

const b64uBytes = (s: unknown, what: string): Uint8Array => {
  if (typeof s !== 'string' || !/^[A-Za-z0-9_-]+={0,2}$/.test(s))
    return refuse('malformed', `${what} is not base64url`);
  return new Uint8Array(Buffer.from(s, 'base64url'));
};

/** The `response` member of a DigitalCredential's data. */
function responseMember(data: unknown): string {
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    return refuse('malformed', 'data is not an object');
  const r = (data as Record<string, unknown>).response;
  return typeof r === 'string' && r.length > 0 ? r : refuse('malformed', 'data.response is missing');
}

/** openid4vp-v1-unsigned with dc_api.jwt: a JWE (ECDH-ES, A128GCM) to this request's key, holding the vp_token. */
async function openJwe(spec: RequestSpec, data: unknown): Promise<Uint8Array> {
  const jwe = responseMember(data);
  if (jwe.split('.').length !== 5) refuse('malformed', 'data.response is not a compact JWE');
  let header: Record<string, unknown>;
  try {
    header = decodeProtectedHeader(jwe) as Record<string, unknown>;
  } catch {
    return refuse('malformed', 'the JWE header cannot be read');
  }
  if (header.alg !== 'ECDH-ES' || header.enc !== RESPONSE_ENC)
    refuse('malformed', `the JWE must be ECDH-ES / ${RESPONSE_ENC}, not ${String(header.alg)} / ${String(header.enc)}`);
  if (header.kid !== undefined && header.kid !== spec.key.publicJwk.kid)
    refuse('transcript_mismatch', "the response is encrypted to another request's key");
  let plaintext: Uint8Array;
  try {
    const key = await importJWK({ ...ecJwk(spec.key.privateJwk as Record<string, unknown>, true) }, 'ECDH-ES');
    ({ plaintext } = await compactDecrypt(jwe, key, {
      keyManagementAlgorithms: ['ECDH-ES'],
      contentEncryptionAlgorithms: [RESPONSE_ENC],
    }));
  } catch {
    return refuse(
      'transcript_mismatch',
      "the response does not decrypt with this request's key (another request's response?)",
    );
  }
  let payload: unknown;
  try {
    payload = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(plaintext));
  } catch {
    return refuse('malformed', 'the decrypted response is not JSON');
  }
  const vp = (payload as { vp_token?: unknown } | null)?.vp_token;
  if (typeof vp !== 'object' || vp === null || Array.isArray(vp))
    return refuse('malformed', 'the response has no vp_token object');
  const keys = Object.keys(vp);
  if (keys.some((k) => k !== DCQL_ID))
    refuse(
      'malformed',
      `the vp_token answers queries that were not asked: ${keys.filter((k) => k !== DCQL_ID).join(', ')}`,
    );
  const entry = (vp as Record<string, unknown>)[DCQL_ID];
  if (entry === undefined) return refuse('claim_missing', 'the wallet returned no credential for the query');
  const presentations = Array.isArray(entry) ? entry : [entry];
  if (presentations.length !== 1) refuse('malformed', 'exactly one presentation was asked for');
  return b64uBytes(presentations[0], 'the presentation');
}

const hpke = new CipherSuite({ kem: new DhkemP256HkdfSha256(), kdf: new HkdfSha256(), aead: new Aes128Gcm() });

/** org-iso-mdoc: `["dcapi", {enc, cipherText}]`, HPKE base mode with `info` = the session transcript. */
async function openHpke(spec: RequestSpec, data: unknown, transcript: Uint8Array): Promise<Uint8Array> {
  const raw = decode(b64uBytes(responseMember(data), 'data.response'), 'the encrypted response');
  if (!Array.isArray(raw) || raw.length !== 2 || raw[0] !== 'dcapi')
    return refuse('malformed', 'the response is not ["dcapi", {enc, cipherText}]');
  const params = asMap(raw[1], 'the encrypted response data');
  const enc = asBytes(params.get('enc'), 'enc');
  const cipherText = asBytes(params.get('cipherText'), 'cipherText');
  try {
    const recipientKey = await hpke.kem.importKey(
      'jwk',
      { ...ecJwk(spec.key.privateJwk as Record<string, unknown>, true) },
      false,
    );
    const pt = await hpke.open(
      { recipientKey, enc: enc.slice().buffer, info: transcript.slice().buffer },
      cipherText.slice().buffer,
    );
    return new Uint8Array(pt);
  } catch {
    return refuse(
      'transcript_mismatch',
      "the response does not decrypt with this request's key and session transcript (another request's or origin's?)",
    );
  }
}

/** A COSE_Sign1 as the response carries it: the protected header's bytes, the payload's bytes, the signature. */
type RawSign1 = {
  protectedBytes: Uint8Array;
  protectedHeaders: CborMap;
  unprotected: CborMap;
  payload: Uint8Array | null;
  signature: Uint8Array;
};

function sign1(v: unknown, what: string): RawSign1 {
  const a = v instanceof mdoc.Sign1 ? v.encodedStructure : v;
  if (!Array.isArray(a) || a.length !== 4) return refuse('malformed', `${what} is not a COSE_Sign1`);
  const protectedBytes = asBytes(a[0], `${what}'s protected header`);
  const protectedHeaders = protectedBytes.length
    ? asMap(decode(protectedBytes, `${what}'s protected header`), `${what}'s protected header`)
    : new Map();
  return {
    protectedBytes,
    protectedHeaders,
    unprotected: asMap(a[1], `${what}'s unprotected header`),
    payload: a[2] === null ? null : asBytes(a[2], `${what}'s payload`),
    signature: asBytes(a[3], `${what}'s signature`),
  };
}

/** RFC 9052 4.4: Sig_structure = ["Signature1", protected, external_aad, payload], verified with WebCrypto. */
async function verifySign1(s: RawSign1, publicJwk: JsonWebKey, payload: Uint8Array): Promise<boolean> {
  const alg = COSE_ECDSA[s.protectedHeaders.get(1) as CoseAlg];
  if (!alg) return false;
  const tbs = cborEncode(['Signature1', s.protectedBytes, new Uint8Array(0), payload]);
  try {
    const key = await crypto.subtle.importKey(
      'jwk',
      publicJwk,
      { name: 'ECDSA', namedCurve: String(publicJwk.crv) },
      false,
      ['verify'],
    );
    return await crypto.subtle.verify(
      { name: 'ECDSA', hash: alg.hash },
      key,
      s.signature as BufferSource,
      tbs as BufferSource,
    );
  } catch {
    return false;
  }
}

const CURVES: Record<number, string> = { 1: 'P-256', 2: 'P-384', 3: 'P-521' };

/** A COSE_Key (integer labels) as a public JWK; only EC2 keys are device keys here. */
function coseKeyToJwk(v: unknown): JsonWebKey {
  const k = asMap(v, 'the device key');
  const crv = CURVES[k.get(-1) as number];
  if (k.get(1) !== 2 || !crv) return refuse('malformed', 'the device key is not an EC2 key on P-256, P-384 or P-521');
  return {
    kty: 'EC',
    crv,
    x: Buffer.from(asBytes(k.get(-2), 'the device key x')).toString('base64url'),
    y: Buffer.from(asBytes(k.get(-3), 'the device key y')).toString('base64url'),
  };
}

const asDate = (v: unknown, what: string): Date =>
  v instanceof Date && !Number.isNaN(v.getTime()) ? v : refuse('malformed', `${what} is not a date`);

async function digest(alg: string, bytes: Uint8Array) {
  return new Uint8Array(await crypto.subtle.digest(alg, bytes as BufferSource));
}
const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * Verifies a DeviceResponse for `element` against the session transcript and the trusted roots, at `now`.
 * `anchors`: the IACA roots trusted for the workspace.
 */
export async function verifyDeviceResponse(input: {
  deviceResponse: Uint8Array;
  transcript: Uint8Array;
  element: string;
  anchors: x509.X509Certificate[];
  now: Date;
}): Promise<VerifiedClaim> {
  const { element, now } = input;
  const response = asMap(decode(input.deviceResponse, 'the DeviceResponse'), 'the DeviceResponse');
  if (typeof response.get('version') !== 'string') refuse('malformed', 'the DeviceResponse has no version');
  const status = response.get('status');
  if (status !== 0) refuse('claim_missing', `the wallet answered with status ${String(status)}`);
  const documents = response.get('documents');
  if (documents === undefined || (Array.isArray(documents) && documents.length === 0))
    refuse('claim_missing', 'the wallet returned no document');
  if (!Array.isArray(documents)) return refuse('malformed', 'documents is not an array');
  if (documents.length > 1) refuse('malformed', 'more than the one document asked for was returned');
  const doc = asMap(documents[0], 'the document');
  const docType = doc.get('docType');
  if (docType !== MDL_DOCTYPE)
    refuse('malformed', `a document of type ${String(docType)} was returned; only ${MDL_DOCTYPE} was asked for`);

  // What is disclosed: exactly the one element asked for, signed by the issuer; nothing signed by the device alone.
  const issuerSigned = asMap(doc.get('issuerSigned'), 'issuerSigned');
  const nameSpaces =
    issuerSigned.get('nameSpaces') === undefined
      ? new Map()
      : asMap(issuerSigned.get('nameSpaces'), 'issuerSigned.nameSpaces');
  const extraNs = [...nameSpaces.keys()].filter((ns) => ns !== MDL_NAMESPACE);
  if (extraNs.length) refuse('malformed', `namespaces not asked for were disclosed: ${extraNs.join(', ')}`);
  const items = (nameSpaces.get(MDL_NAMESPACE) ?? []) as unknown[];
  if (!Array.isArray(items)) return refuse('malformed', "the namespace's items are not an array");
  const parsed = items.map((raw) => {
    const di = asDataItem(raw, 'an IssuerSignedItem');
    const item = asMap(decode(di.buffer, 'an IssuerSignedItem'), 'an IssuerSignedItem');
    return {
      bytes: di.buffer,
      digestId: item.get('digestID'),
      id: item.get('elementIdentifier'),
      value: item.get('elementValue'),
    };
  });
  // ISO/IEC 18013-5 7.2.5: a wallet without the age_over_NN asked for answers with the nearest one that decides it
  // (the smallest age_over_MM, MM >= NN, that is true, or the largest, MM <= NN, that is false).
  const ageOver = (id: unknown) => (typeof id === 'string' && /^age_over_\d{2}$/.test(id) ? Number(id.slice(9)) : null);
  const extra = parsed.filter((p) => ageOver(p.id) === null).map((p) => String(p.id));
  if (extra.length) refuse('malformed', `elements not asked for were disclosed: ${extra.join(', ')}`);
  if (parsed.length > 1)
    refuse(
      'malformed',
      `more than the one age_over_NN asked for was disclosed: ${parsed.map((p) => String(p.id)).join(', ')}`,
    );
  const errors = doc.get('errors');
  if (parsed.length === 0)
    refuse(
      'claim_missing',
      isMap(errors)
        ? `the wallet did not disclose ${element} (it reported an error for it)`
        : `the wallet did not disclose ${element}`,
    );
  const item = parsed[0];
  if (typeof item.value !== 'boolean') refuse('malformed', `${String(item.id)} is not a boolean`);
  const asked = ageOver(element)!;
  const given = ageOver(item.id)!;
  if (given !== asked && !(item.value ? given > asked : given < asked))
    refuse('malformed', `${String(item.id)} = ${String(item.value)} does not answer ${element}`);
  if (typeof item.digestId !== 'number') refuse('malformed', 'the element has no digestID');

  const deviceSigned = asMap(doc.get('deviceSigned'), 'deviceSigned');
  const deviceNs = asDataItem(deviceSigned.get('nameSpaces'), 'deviceSigned.nameSpaces');
  const deviceNsMap = asMap(decode(deviceNs.buffer, 'deviceSigned.nameSpaces'), 'deviceSigned.nameSpaces');
  if (deviceNsMap.size > 0) refuse('malformed', 'device-signed elements were disclosed; none were asked for');

  // The issuer: its signer certificate, chained to a root the operator trusts, every certificate valid now.
  const issuerAuth = sign1(issuerSigned.get('issuerAuth'), 'issuerAuth');
  const x5 = issuerAuth.protectedHeaders.get(33) ?? issuerAuth.unprotected.get(33);
  const x5chain = (Array.isArray(x5) ? x5 : x5 === undefined ? [] : [x5]).map((c) =>
    asBytes(c, 'an x5chain certificate'),
  );
  const chain = await evaluateChain(x5chain, input.anchors, now);
  if (!chain.ok) return refuse(chain.reason, chain.detail);

  // The MSO's COSE signature, with the signer certificate's key over the bytes the issuer signed.
  const payload = issuerAuth.payload ?? refuse('malformed', 'issuerAuth has no payload');
  const signerKey = await chain.leaf.publicKey
    .export({ name: 'ECDSA', namedCurve: (chain.leaf.publicKey.algorithm as EcKeyAlgorithm).namedCurve }, ['verify'])
    .catch(() => null);
  if (!signerKey) refuse('invalid_signature', "the document signer's key is not an ECDSA key");
  if (!COSE_ECDSA[issuerAuth.protectedHeaders.get(1) as CoseAlg])
    refuse('invalid_signature', 'the MSO is not signed with ES256, ES384 or ES512 in its protected header');
  const signerJwk = (await crypto.subtle.exportKey('jwk', signerKey!)) as JsonWebKey;
  if (!(await verifySign1(issuerAuth, signerJwk, payload)))
    refuse('invalid_signature', "the issuer's signature over the MSO does not verify");

  const msoItem = asDataItem(decode(payload, 'the MSO'), 'the MSO');
  const mso = asMap(decode(msoItem.buffer, 'the MSO'), 'the MSO');
  if (mso.get('docType') !== docType) refuse('malformed', 'the MSO is for another document type');
  const validity = asMap(mso.get('validityInfo'), 'validityInfo');
  const signed = asDate(validity.get('signed'), 'validityInfo.signed');
  const validFrom = asDate(validity.get('validFrom'), 'validityInfo.validFrom');
  const validUntil = asDate(validity.get('validUntil'), 'validityInfo.validUntil');
  if (signed < chain.leaf.notBefore || signed > chain.leaf.notAfter)
    refuse('expired', "the MSO was signed outside its signer certificate's validity");
  // An MSO dated after now was not signed yet: a forged or misdated credential (no tolerance, as for validity).
  if (signed > now)
    refuse('expired', `the MSO says it was signed at ${signed.toISOString()}, after ${now.toISOString()}`);
  if (now < validFrom || now > validUntil)
    refuse(
      'expired',
      `the MSO is valid ${validFrom.toISOString()} to ${validUntil.toISOString()}, not at ${now.toISOString()}`,
    );

  // The disclosed element's digest, over its own encoding, in the signed MSO.
  const digestAlg = mso.get('digestAlgorithm');
  if (digestAlg !== 'SHA-256' && digestAlg !== 'SHA-384' && digestAlg !== 'SHA-512')
    return refuse('malformed', `unsupported digest algorithm ${String(digestAlg)}`);
  const digests = asMap(mso.get('valueDigests'), 'valueDigests');
  const nsDigests = isMap(digests.get(MDL_NAMESPACE)) ? (digests.get(MDL_NAMESPACE) as CborMap) : new Map();
  const expected = nsDigests.get(item.digestId);
  const actual = await digest(digestAlg, cborEncode(DataItem.fromBuffer(item.bytes)));
  if (!isBytes(expected) || !sameBytes(expected, actual))
    refuse('digest_mismatch', `${element} does not match the digest the issuer signed`);

  // The device signature over DeviceAuthentication: this request's session transcript, the docType and the
  // device-signed namespaces (their bytes as sent), with the device key the issuer put in the MSO.
  const deviceAuth = asMap(deviceSigned.get('deviceAuth'), 'deviceAuth');
  if (deviceAuth.has('deviceMac'))
    refuse('malformed', 'device MAC authentication needs a reader key, which the Digital Credentials API does not use');
  const deviceSignature = sign1(
    deviceAuth.get('deviceSignature') ?? refuse('malformed', 'there is no device signature'),
    'deviceSignature',
  );
  const deviceKeyInfo = asMap(mso.get('deviceKeyInfo'), 'deviceKeyInfo');
  const deviceJwk = coseKeyToJwk(deviceKeyInfo.get('deviceKey'));
  const authentication = mdoc.concatBytes([
    Uint8Array.of(0x84),
    cborEncode('DeviceAuthentication'),
    input.transcript,
    cborEncode(docType),
    cborEncode(DataItem.fromBuffer(deviceNs.buffer)),
  ]);
  const authenticationBytes = cborEncode(DataItem.fromBuffer(authentication));
  if (!(await verifySign1(deviceSignature, deviceJwk, authenticationBytes))) {
    refuse(
      'transcript_mismatch',
      "the device signature does not verify over this request's session transcript (a response for another request or origin?)",
    );
  }
  return {
    element: String(item.id),
    value: item.value as boolean,
    issuer: issuerOf(chain.leaf),
    docType: docType as string,
  };
}

/** A response as the browser gave it (`protocol` and `data`), decrypted and verified for the request `spec`. */
export async function verifyWalletResponse(input: {
  spec: RequestSpec;
  data: unknown;
  anchors: x509.X509Certificate[];
  now: Date;
}): Promise<VerifiedClaim> {
  const { spec } = input;
  const transcript = await sessionTranscriptBytes(spec);
  const deviceResponse =
    spec.protocol === 'openid4vp-v1-unsigned'
      ? await openJwe(spec, input.data)
      : await openHpke(spec, input.data, transcript);
  return verifyDeviceResponse({
    deviceResponse,
    transcript,
    element: spec.element,
    anchors: input.anchors,
    now: input.now,
  });
}

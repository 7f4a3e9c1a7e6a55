/**
 * The two ways a page asks a wallet through the W3C Digital Credentials API, as this service speaks them
 * (docs/wallet.md "The request"): what a request asks for, the `data` a page hands to `navigator.credentials.get`,
 * and the session transcript a response must be bound to, rebuilt from what the server stored, never from the client.
 * - `openid4vp-v1-unsigned`: OpenID for Verifiable Presentations 1.0, Appendix A (unsigned request over the DC API),
 *   DCQL, `mso_mdoc`, response mode `dc_api.jwt`; transcript of Appendix B.2.6.2 (OpenID4VPDCAPIHandover).
 * - `org-iso-mdoc`: ISO/IEC 18013-7 Annex C: a DeviceRequest and an EncryptionInfo, both base64url CBOR; the
 *   transcript's handover is `["dcapi", SHA-256(CBOR([EncryptionInfo base64url, origin]))]`.
 */
import { z } from 'zod';
import { SessionTranscript, cborEncode, mdoc, mdocContext } from './mdoc';
import type { WalletProtocol } from '../../core/observability/wallet-codes';

export { WALLET_PROTOCOLS, type WalletProtocol } from '../../core/observability/wallet-codes';

/** ISO/IEC 18013-5: the mobile driving licence, its namespace. */
export const MDL_DOCTYPE = 'org.iso.18013.5.1.mDL';
export const MDL_NAMESPACE = 'org.iso.18013.5.1';
/** The id of the one DCQL credential query; the response's vp_token is keyed by it. */
export const DCQL_ID = 'mdl_age';
/** A request is answered within this time of its creation, or not at all. */
export const WALLET_REQUEST_TTL_MS = 5 * 60_000;
/** OpenID4VP's JWE content encryption (A128GCM, the default of OpenID4VP 1.0 section 8.3). */
export const RESPONSE_ENC = 'A128GCM';

/** The element that proves the threshold: `age_over_NN`, NN two digits (ISO/IEC 18013-5 7.2.5), 00 to 99. */
export function ageElement(threshold: number): string | null {
  return Number.isInteger(threshold) && threshold >= 0 && threshold <= 99
    ? `age_over_${String(threshold).padStart(2, '0')}`
    : null;
}

/**
 * The origin a response is bound to: `https://host[:port]`, nothing after it. `http://localhost` and
 * `http://127.0.0.1` are secure contexts too (a browser offers the API there), for development.
 */
/** The longest origin: `https://`, a DNS name (253 characters at most) and a port. */
export const WALLET_ORIGIN_MAX = 270;
export const walletOrigin = z
  .string()
  .max(WALLET_ORIGIN_MAX, `At most ${WALLET_ORIGIN_MAX} characters: an origin is a scheme, a host and a port.`)
  .superRefine((s, ctx) => {
    if (s.length > WALLET_ORIGIN_MAX) return;
    let u: URL;
    try {
      u = new URL(s);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'Must be an origin such as https://example.com.' });
      return;
    }
    const local = u.protocol === 'http:' && (u.hostname === 'localhost' || u.hostname === '127.0.0.1');
    if (u.protocol !== 'https:' && !local)
      ctx.addIssue({ code: 'custom', message: 'Must be an https origin (or http://localhost for development).' });
    else if (u.origin !== s)
      ctx.addIssue({
        code: 'custom',
        message: `Must be an origin only, with no path, query or trailing slash: ${u.origin}`,
      });
  });

const b64u = (b: Uint8Array) => Buffer.from(b).toString('base64url');

export type EncryptionKey = { publicJwk: JsonWebKey & { kid: string }; privateJwk: JsonWebKey };

/** A fresh P-256 key for one request's response (ECDH-ES for the JWE, the DHKEM of HPKE for Annex C). */
export async function newEncryptionKey(kid: string): Promise<EncryptionKey> {
  const pair = (await crypto.subtle.generateKey({ name: 'ECDH', namedCurve: 'P-256' }, true, [
    'deriveBits',
  ])) as CryptoKeyPair;
  const priv = await crypto.subtle.exportKey('jwk', pair.privateKey);
  return {
    privateJwk: { kty: 'EC', crv: 'P-256', x: priv.x, y: priv.y, d: priv.d },
    publicJwk: { kty: 'EC', crv: 'P-256', x: priv.x, y: priv.y, kid },
  };
}

/** What one request asks, as the row keeps it (lib/domain/wallet/requests.ts). */
export type RequestSpec = {
  protocol: WalletProtocol;
  origin: string;
  nonce: string;
  element: string;
  key: EncryptionKey;
  encryptionInfo: string | null;
};

/** The JWK SHA-256 thumbprint (RFC 7638) of the key a response is encrypted to, as raw bytes. */
export async function jwkThumbprint(jwk: JsonWebKey): Promise<Uint8Array> {
  const canonical = JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y });
  return new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(canonical)));
}

/** OpenID4VP 1.0 Appendix A.1: the request a page passes as `data` for `openid4vp-v1-unsigned`. */
export function openid4vpRequestData(spec: RequestSpec) {
  return {
    response_type: 'vp_token',
    response_mode: 'dc_api.jwt',
    nonce: spec.nonce,
    dcql_query: {
      credentials: [
        {
          id: DCQL_ID,
          format: 'mso_mdoc',
          meta: { doctype_value: MDL_DOCTYPE },
          claims: [{ path: [MDL_NAMESPACE, spec.element], intent_to_retain: false }],
        },
      ],
    },
    client_metadata: {
      jwks: { keys: [{ ...spec.key.publicJwk, use: 'enc', alg: 'ECDH-ES' }] },
      encrypted_response_enc_values_supported: [RESPONSE_ENC],
      vp_formats_supported: {
        mso_mdoc: { issuerauth_alg_values: [-7, -35, -36], deviceauth_alg_values: [-7, -35, -36] },
      },
    },
  };
}

/** The Annex C EncryptionInfo: `["dcapi", { nonce, recipientPublicKey }]`, the key a COSE_Key (integer labels). */
export function annexCEncryptionInfo(nonce: Uint8Array, publicJwk: JsonWebKey): string {
  const coseKey = new Map<number, unknown>([
    [1, 2], // kty: EC2
    [-1, 1], // crv: P-256
    [-2, Buffer.from(publicJwk.x!, 'base64url')],
    [-3, Buffer.from(publicJwk.y!, 'base64url')],
  ]);
  return b64u(
    cborEncode([
      'dcapi',
      new Map<string, unknown>([
        ['nonce', nonce],
        ['recipientPublicKey', coseKey],
      ]),
    ]),
  );
}

/** ISO/IEC 18013-7 Annex C: the request a page passes as `data` for `org-iso-mdoc`. */
export function annexCRequestData(spec: RequestSpec) {
  const deviceRequest = mdoc.DeviceRequest.create({
    version: '1.0',
    docRequests: [
      mdoc.DocRequest.create({
        itemsRequest: mdoc.ItemsRequest.create({
          docType: MDL_DOCTYPE,
          namespaces: { [MDL_NAMESPACE]: { [spec.element]: false } },
        }),
      }),
    ],
  });
  return { deviceRequest: b64u(deviceRequest.encode()), encryptionInfo: spec.encryptionInfo! };
}

export function requestData(spec: RequestSpec) {
  return spec.protocol === 'openid4vp-v1-unsigned' ? openid4vpRequestData(spec) : annexCRequestData(spec);
}

/** The Handover class of @owf/mdoc (not exported by 0.6.0): the base of its own handovers. */
const Handover = Object.getPrototypeOf(mdoc.QrHandover) as typeof mdoc.QrHandover;

/** ISO/IEC 18013-7 Annex C handover, `["dcapi", dcapiInfoHash]` (not in @owf/mdoc 0.6.0). */
export class DcApiHandover extends (Handover as unknown as new (s: Uint8Array) => mdoc.QrHandover) {
  static get encodingSchema() {
    const bytes = z.custom<Uint8Array>((v) => v instanceof Uint8Array);
    return z.codec(z.tuple([z.literal('dcapi'), bytes]), bytes, {
      encode: (hash) => ['dcapi', hash] as ['dcapi', Uint8Array],
      decode: ([, hash]) => hash,
    });
  }
  get requiresReaderKey() {
    return false;
  }
  get requiresDeviceEngagement() {
    return false;
  }
}

/** The CBOR-encoded SessionTranscript of a request, from what the server stored. */
export async function sessionTranscriptBytes(
  spec: Pick<RequestSpec, 'protocol' | 'origin' | 'nonce' | 'key' | 'encryptionInfo'>,
): Promise<Uint8Array> {
  if (spec.protocol === 'openid4vp-v1-unsigned') {
    const t = await SessionTranscript.forOid4VpDcApi(
      { origin: spec.origin, nonce: spec.nonce, jwkThumbprint: await jwkThumbprint(spec.key.publicJwk) },
      mdocContext,
    );
    return t.encode();
  }
  const info = cborEncode([spec.encryptionInfo!, spec.origin]);
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', info as BufferSource));
  const handover = (
    DcApiHandover as unknown as { fromDecodedStructure(h: Uint8Array): mdoc.QrHandover }
  ).fromDecodedStructure(hash);
  return SessionTranscript.create({ handover }).encode();
}

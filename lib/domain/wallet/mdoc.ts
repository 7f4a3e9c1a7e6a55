/**
 * The one door to @owf/mdoc, @peculiar/x509 and the crypto they are given (docs/wallet.md "How a response is
 * verified"). Everything else in the service imports these from here, for two reasons:
 * - @peculiar/x509 2.x needs `reflect-metadata` loaded before it (./x509-provider.ts);
 * - @owf/mdoc 0.6.0 sets zod's global error map when it is loaded (`z.config({ customError })`), which would change
 *   every validation message of the API. It is put back to zod's own map right after the import, once, here.
 *
 * The MdocContext is written on WebCrypto. Its certificate-chain check is the strict one of ./x509.ts (signature to
 * an operator-trusted root, every date, key usages), never a "verify and ignore the answer" stand-in.
 */
import { x509 } from './x509-provider';
import * as mdoc from '@owf/mdoc';
import { createECDH, createHash, hkdfSync } from 'node:crypto';
import { z } from 'zod';
import { evaluateChain } from './x509';

z.config({ customError: undefined });

const webcrypto = globalThis.crypto;

export { x509, mdoc };
export const { CoseKey, SessionTranscript, cborDecode, cborEncode, DataItem } = mdoc;

/** COSE signature algorithms this service verifies (RFC 9053): ECDSA on P-256, P-384, P-521. */
export const COSE_ECDSA = {
  [-7]: { name: 'ES256', hash: 'SHA-256', namedCurve: 'P-256' },
  [-35]: { name: 'ES384', hash: 'SHA-384', namedCurve: 'P-384' },
  [-36]: { name: 'ES512', hash: 'SHA-512', namedCurve: 'P-521' },
} as const satisfies Record<number, { name: string; hash: string; namedCurve: string }>;
export type CoseAlg = keyof typeof COSE_ECDSA;

const byName = (name: string) =>
  (Object.entries(COSE_ECDSA) as [string, (typeof COSE_ECDSA)[CoseAlg]][]).find(([, a]) => a.name === name);

/** A JWK of an EC key as WebCrypto takes it: only the key's own members (an `alg` of another family is refused by it). */
export function ecJwk(jwk: Record<string, unknown>, withPrivate: boolean): JsonWebKey {
  const out: JsonWebKey = { kty: 'EC', crv: String(jwk.crv), x: String(jwk.x), y: String(jwk.y) };
  if (withPrivate && typeof jwk.d === 'string') out.d = jwk.d;
  return out;
}

async function importEcdsa(jwk: Record<string, unknown>, alg: (typeof COSE_ECDSA)[CoseAlg], usage: 'sign' | 'verify') {
  return webcrypto.subtle
    .importKey('jwk', ecJwk(jwk, usage === 'sign'), { name: 'ECDSA', namedCurve: String(jwk.crv) }, false, [usage])
    .then((key) => ({ key, alg }));
}

function algOf(algorithm: unknown, key: mdoc.CoseKey) {
  const chosen = algorithm ?? key.algorithm;
  const entry =
    typeof chosen === 'number'
      ? COSE_ECDSA[chosen as CoseAlg]
      : typeof chosen === 'string'
        ? byName(chosen)?.[1]
        : undefined;
  if (!entry) throw new Error(`Unsupported COSE signature algorithm ${String(chosen)}.`);
  return entry;
}

/** A COSE_Key (a CBOR map with integer labels) as a JWK. */
export const coseKeyJwk = (key: mdoc.CoseKey) => key.jwk as Record<string, unknown>;

/**
 * The MdocContext @owf/mdoc calls for every cryptographic step. The test wallet signs with it; the service's own
 * verification (./verify.ts) uses its digest and the same primitives on the response's original bytes.
 */
export const mdocContext: mdoc.MdocContext = {
  crypto: {
    random: (length) => webcrypto.getRandomValues(new Uint8Array(length)),
    digest: async ({ digestAlgorithm, bytes }) =>
      new Uint8Array(await webcrypto.subtle.digest(digestAlgorithm, bytes as BufferSource)),
    // ISO 18013-5 9.1.3.5: HKDF-SHA-256 over the ECDH secret, salt = SHA-256(SessionTranscriptBytes), 32 bytes.
    calculateEphemeralMacKey: async ({ privateKey, publicKey, sessionTranscriptBytes, info }) => {
      // WebCrypto cannot import a bare private scalar, so the shared secret comes from node:crypto's ECDH.
      const ecdh = createECDH('prime256v1');
      ecdh.setPrivateKey(privateKey);
      const shared = ecdh.computeSecret(publicKey);
      const k = hkdfSync('sha256', shared, createHash('sha256').update(sessionTranscriptBytes).digest(), info, 32);
      return mdoc.CoseKey.create({ keyType: mdoc.KeyType.Oct, k: new Uint8Array(k) });
    },
  },
  cose: {
    sign1: {
      sign: async ({ toBeSigned, key, algorithm }) => {
        const { key: k, alg } = await importEcdsa(coseKeyJwk(key), algOf(algorithm, key), 'sign');
        return new Uint8Array(
          await webcrypto.subtle.sign({ name: 'ECDSA', hash: alg.hash }, k, toBeSigned as BufferSource),
        );
      },
      verify: async ({ key, sign1 }) => {
        const { key: k, alg } = await importEcdsa(
          coseKeyJwk(key),
          algOf(sign1.protectedHeaders.headers.get(mdoc.Header.Algorithm), key),
          'verify',
        );
        return webcrypto.subtle.verify(
          { name: 'ECDSA', hash: alg.hash },
          k,
          sign1.signature as BufferSource,
          sign1.toBeSigned as BufferSource,
        );
      },
    },
    mac0: {
      sign: async ({ key, toBeAuthenticated }) => {
        const k = await webcrypto.subtle.importKey(
          'raw',
          key.k as BufferSource,
          { name: 'HMAC', hash: 'SHA-256' },
          false,
          ['sign'],
        );
        return new Uint8Array(await webcrypto.subtle.sign('HMAC', k, toBeAuthenticated as BufferSource));
      },
      verify: async ({ mac0, key }) => {
        const k = await webcrypto.subtle.importKey(
          'raw',
          key.k as BufferSource,
          { name: 'HMAC', hash: 'SHA-256' },
          false,
          ['verify'],
        );
        return webcrypto.subtle.verify('HMAC', k, mac0.tag as BufferSource, mac0.toBeAuthenticated as BufferSource);
      },
    },
  },
  x509: {
    getIssuerNameField: ({ certificate, field }) =>
      new x509.X509Certificate(certificate as BufferSource).issuerName.getField(field),
    getPublicKey: async ({ certificate, alg }) => {
      const cert = new x509.X509Certificate(certificate as BufferSource);
      const entry = byName(alg)?.[1];
      if (!entry) throw new Error(`Unsupported certificate key algorithm ${alg}.`);
      const key = await cert.publicKey.export(
        {
          name: 'ECDSA',
          namedCurve:
            cert.publicKey.algorithm && 'namedCurve' in cert.publicKey.algorithm
              ? String(cert.publicKey.algorithm.namedCurve)
              : entry.namedCurve,
        },
        ['verify'],
        webcrypto,
      );
      const jwk = await webcrypto.subtle.exportKey('jwk', key);
      return mdoc.CoseKey.fromJwk({ ...ecJwk(jwk as Record<string, unknown>, false), alg });
    },
    verifyCertificateChain: async ({ trustedCertificates, x5chain, now }) => {
      const r = await evaluateChain(
        x5chain,
        trustedCertificates.map((c) => new x509.X509Certificate(c as BufferSource)),
        now ?? new Date(),
      );
      if (!r.ok) throw new Error(`${r.reason}: ${r.detail}`);
    },
    getCertificateData: async ({ certificate }) => {
      const cert = new x509.X509Certificate(certificate as BufferSource);
      const thumbprint = Buffer.from(await cert.getThumbprint('SHA-256', webcrypto)).toString('hex');
      return {
        issuerName: cert.issuer,
        subjectName: cert.subject,
        serialNumber: cert.serialNumber,
        thumbprint,
        notBefore: cert.notBefore,
        notAfter: cert.notAfter,
        pem: cert.toString('pem'),
      };
    },
  },
};

/**
 * npm run bench:wallet [-- --n N]
 *
 * What verifying one digital ID wallet's response costs the server (docs/wallet.md "How a response is verified"):
 * the time of `verifyWalletResponse` (decryption, the session transcript, parsing, the certificate chain, the
 * MSO's signature, the digest, the device signature), per protocol, on N responses each (default 200) made by the
 * test wallet beforehand, run one after another on one core. No database, no HTTP: the cryptographic check alone,
 * which is what a proof adds to a request. Prints one JSON line per protocol (ms: p50, p95, max; per second on one
 * core).
 */
import { performance } from 'node:perf_hooks';
import {
  annexCEncryptionInfo,
  newEncryptionKey,
  requestData,
  WALLET_PROTOCOLS,
  type RequestSpec,
  type WalletProtocol,
} from '../lib/domain/wallet/protocol';
import { verifyWalletResponse } from '../lib/domain/wallet/verify';
import { testIssuer, walletRespond } from '../test/helpers/wallet';
import { cliFlags } from '../lib/core/cli-flags';

const N = Number(cliFlags({ n: '200' }).n);
const ORIGIN = 'https://shop.example';

async function spec(protocol: WalletProtocol, i: number): Promise<RequestSpec> {
  const key = await newEncryptionKey(`wrq_bench_${i}`);
  const nonce = crypto.getRandomValues(new Uint8Array(32));
  return {
    protocol,
    origin: ORIGIN,
    nonce: Buffer.from(nonce).toString('base64url'),
    element: 'age_over_18',
    key,
    encryptionInfo: protocol === 'org-iso-mdoc' ? annexCEncryptionInfo(nonce, key.publicJwk) : null,
  };
}

const q = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];

const issuer = await testIssuer();
const credential = await issuer.issue();
for (const protocol of WALLET_PROTOCOLS) {
  const cases = [];
  for (let i = 0; i < N; i++) {
    const s = await spec(protocol, i);
    cases.push({
      s,
      data: (await walletRespond(credential, protocol, requestData(s) as Record<string, unknown>, ORIGIN)).data,
    });
  }
  // Warm-up: the first verifications load code and WebCrypto's key paths.
  for (const c of cases.slice(0, 10))
    await verifyWalletResponse({ spec: c.s, data: c.data, anchors: [issuer.ca.cert], now: new Date() });
  const ms: number[] = [];
  for (const c of cases) {
    const t = performance.now();
    const r = await verifyWalletResponse({ spec: c.s, data: c.data, anchors: [issuer.ca.cert], now: new Date() });
    ms.push(performance.now() - t);
    if (!r.value) throw new Error('a valid proof was not verified');
  }
  ms.sort((a, b) => a - b);
  const round = (x: number) => Math.round(x * 100) / 100;
  const mean = ms.reduce((a, b) => a + b, 0) / ms.length;
  console.log(
    JSON.stringify({
      bench: 'wallet-verify',
      protocol,
      n: N,
      p50_ms: round(q(ms, 0.5)),
      p95_ms: round(q(ms, 0.95)),
      max_ms: round(ms[ms.length - 1]),
      per_second_one_core: Math.round(1000 / mean),
    }),
  );
}

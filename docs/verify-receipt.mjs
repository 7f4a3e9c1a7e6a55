#!/usr/bin/env node
// Checks an Open Verify erasure receipt. Node 18 or later, no dependencies (see docs/receipts.md).
//
//   node verify-receipt.mjs <receipt.json> <keys>
//
// <receipt.json>: the receipt as DELETE /v1/verifications/{id}/data or `npm run ops -- verification:erase`
//   printed it (the whole output, or the `{ "receipt": {...}, "signature": {...} }` inside it).
// <keys>: the service's public keys — the URL you know for it ({BASE_URL}/receipt-keys) or a saved copy of that
//   JSON. Not the receipt's own `keys_url`: a forged receipt would name a key of its forger.
// Prints "valid" and exits 0, or prints why not and exits 1.
import { createPublicKey, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';

// RFC 8785 (JSON Canonicalization Scheme) for what receipts hold: keys sorted, no whitespace.
const canonical = (v) =>
  v === null || typeof v !== 'object'
    ? JSON.stringify(v)
    : Array.isArray(v)
      ? `[${v.map(canonical).join(',')}]`
      : `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`;

const [receiptFile, keysSource] = process.argv.slice(2);
if (!receiptFile || !keysSource) {
  console.error('usage: node verify-receipt.mjs <receipt.json> <keys URL or file>');
  process.exit(2);
}
const doc = JSON.parse(readFileSync(receiptFile, 'utf8'));
const signed = doc.data?.receipt ?? (doc.receipt?.signature ? doc.receipt : doc);
const keys = /^https?:\/\//.test(keysSource) ? await (await fetch(keysSource)).json() : JSON.parse(readFileSync(keysSource, 'utf8'));

const jwk = keys.keys.find((k) => k.kid === signed.signature?.kid);
if (signed.signature?.alg !== 'EdDSA' || !jwk) {
  console.log(`invalid: no published Ed25519 key ${signed.signature?.kid}`);
  process.exit(1);
}
const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, format: 'jwk' });
const ok = verify(null, Buffer.from(canonical(signed.receipt), 'utf8'), key, Buffer.from(signed.signature.value, 'base64url'));
if (!ok) {
  console.log('invalid: the signature does not match the receipt');
  process.exit(1);
}
const r = signed.receipt;
console.log(`valid: ${r.issuer} erased the data of verification ${r.verification_id} (external_id ${r.external_id}) at ${r.erased_at} (${r.trigger}); signed by ${jwk.kid}`);

/**
 * Receipts: canonical form, Ed25519 signature, and the verifiers integrators are given in docs/ (the Node script
 * and the OpenSSL + jq script), each run here as an integrator would run it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalJson, signReceipt, verifyReceipt, type Receipt, type SignedReceipt } from './receipts';

const { publicKey, privateKey } = generateKeyPairSync('ed25519');
const kid = 'rk_test0000000000';
const jwks = {
  keys: [
    {
      kty: 'OKP' as const,
      crv: 'Ed25519' as const,
      x: publicKey.export({ format: 'jwk' }).x!,
      kid,
      alg: 'EdDSA',
      use: 'sig',
      status: 'active',
    },
  ],
};

const receipt: Receipt = {
  type: 'open-verify/erasure-receipt',
  version: 1,
  id: 'rcp_01m80000000000000000000000',
  issuer: 'https://verify.example.com',
  keys_url: 'https://verify.example.com/receipt-keys',
  workspace_id: 'ws_1',
  verification_id: '01967a2e-0000-7000-8000-000000000001',
  external_id: 'user-42 «Zoë»/ü',
  mode: 'live',
  status: 'approved',
  trigger: 'request',
  requested_by: 'key:key_1',
  decided_at: '2026-11-20T10:00:00.000Z',
  retention_days: null,
  erased_at: '2026-11-22T10:00:00.000Z',
  erased: {
    media: [{ id: 'med_1', type: 'selfie', side: null, document_type: null, bytes: true, analysis: true }],
    face_embedding: true,
    liveness_faces: 0,
    data_key: true,
    result_fields: ['person.surname'],
    external_metadata: true,
    webhook_bodies: 1,
    webhook_responses: 0,
  },
  kept: { fields: ['id', 'status'], blocklist_entries: 0 },
};
const signed = signReceipt({ kid, privateKey }, receipt);
const docs = path.resolve(import.meta.dirname, '../../../docs');

function files(r: unknown) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ov-receipt-'));
  fs.writeFileSync(path.join(dir, 'receipt.json'), JSON.stringify(r, null, 2));
  fs.writeFileSync(path.join(dir, 'keys.json'), JSON.stringify(jwks));
  return {
    receipt: path.join(dir, 'receipt.json'),
    keys: path.join(dir, 'keys.json'),
    done: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}
const tampered: SignedReceipt = { ...signed, receipt: { ...receipt, erased_at: '2026-11-23T10:00:00.000Z' } };

describe('erasure receipts', () => {
  it('canonical JSON: keys sorted at every level, no whitespace, unicode and slashes as JSON.stringify writes them', () => {
    expect(canonicalJson({ b: 1, a: { d: [true, null, 'x/ü'], c: 'é' } })).toBe(
      '{"a":{"c":"é","d":[true,null,"x/ü"]},"b":1}',
    );
    expect(canonicalJson({ z: undefined, y: 0 })).toBe('{"y":0}');
    expect(() => canonicalJson({ x: NaN })).toThrow();
  });

  it('verifies with the published key; any change to the receipt, another key, or an unknown key id fails', () => {
    expect(verifyReceipt(signed, jwks)).toEqual({ valid: true });
    expect(verifyReceipt(tampered, jwks).valid).toBe(false);
    const other = generateKeyPairSync('ed25519');
    expect(verifyReceipt(signReceipt({ kid, privateKey: other.privateKey }, receipt), jwks).valid).toBe(false);
    expect(verifyReceipt({ ...signed, signature: { ...signed.signature, kid: 'rk_unknown' } }, jwks)).toEqual({
      valid: false,
      reason: 'no published key rk_unknown',
    });
    // Re-serialising the receipt any other way changes nothing: the signature covers the canonical form.
    expect(verifyReceipt(JSON.parse(JSON.stringify(signed, null, 4)), jwks)).toEqual({ valid: true });
  });

  it('docs/verify-receipt.mjs: valid for the receipt as the API returns it, invalid when tampered with', () => {
    const ok = files({ data: { id: receipt.verification_id, receipt: signed } });
    const bad = files(tampered);
    try {
      const out = execFileSync(process.execPath, [
        path.join(docs, 'verify-receipt.mjs'),
        ok.receipt,
        ok.keys,
      ]).toString();
      expect(out).toMatch(
        new RegExp(`^valid: https://verify.example.com erased the data of verification ${receipt.verification_id}`),
      );
      const r = spawnSync(process.execPath, [path.join(docs, 'verify-receipt.mjs'), bad.receipt, bad.keys]);
      expect([r.status, r.stdout.toString().trim()]).toEqual([1, 'invalid: the signature does not match the receipt']);
    } finally {
      ok.done();
      bad.done();
    }
  });

  const haveTools = spawnSync('jq', ['--version']).status === 0 && spawnSync('openssl', ['version']).status === 0;
  it.skipIf(!haveTools)('docs/verify-receipt.sh (OpenSSL 3 and jq): valid, and invalid when tampered with', () => {
    const ok = files({ verification: { id: receipt.verification_id }, receipt: signed });
    const bad = files(tampered);
    try {
      const good = spawnSync('sh', [path.join(docs, 'verify-receipt.sh'), ok.receipt, ok.keys]);
      expect([good.status, good.stdout.toString().trim()], good.stderr.toString()).toEqual([
        0,
        `valid: signed by ${kid}`,
      ]);
      const r = spawnSync('sh', [path.join(docs, 'verify-receipt.sh'), bad.receipt, bad.keys]);
      expect([r.status, r.stdout.toString().trim()]).toEqual([1, 'invalid: the signature does not match the receipt']);
    } finally {
      ok.done();
      bad.done();
    }
  });
});

/**
 * The README's walk-through with the TypeScript SDK: create, consent (text fetched and its hash checked),
 * upload a selfie, submit, wait for the outcome, and find it again by external_id.
 *
 *   OPEN_VERIFY_BASE_URL=http://localhost:3000 OPEN_VERIFY_API_KEY=pk_… OPEN_VERIFY_SECRET_KEY=sk_test_… \
 *   npx tsx sdk/examples/walkthrough.ts
 *
 * SELFIE names a face photo (JPEG or PNG); without it, the repository's sample (docs/samples/selfie.jpg, a
 * public-domain portrait; `npm run ops -- sample:selfie --out selfie.jpg` writes a copy).
 *
 * Webhooks are signed with the workspace's *active* key, not with the key these requests are signed with: on the
 * demo workspace that is the live secret (sk_live_…), so a receiver verifies them with it, even while this example
 * runs with the test secret.
 *
 * (Published: `import { OpenVerify } from '@open-verify/sdk'`.) Prints one JSON line per step.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { isApiError, OpenVerify } from '../src/index.js';

function need(name: string): string {
  const v = process.env[name];
  if (!v) throw new Error(`Set ${name}.`);
  return v;
}
const step = (name: string, data: unknown) => console.log(JSON.stringify({ step: name, ...(data as object) }));

// OPEN_VERIFY_REQUEST_TIMESTAMP=1: every request signed with X-Request-Timestamp (docs/api.md "Request timestamps").
const ov = new OpenVerify({
  baseUrl: need('OPEN_VERIFY_BASE_URL'),
  apiKey: need('OPEN_VERIFY_API_KEY'),
  secretKey: need('OPEN_VERIFY_SECRET_KEY'),
  requestTimestamp: process.env.OPEN_VERIFY_REQUEST_TIMESTAMP === '1',
});
const externalId = process.env.EXTERNAL_ID ?? 'user-42';
const selfie = process.env.SELFIE ?? fileURLToPath(new URL('../../docs/samples/selfie.jpg', import.meta.url));

// 1. Create a verification (a retry after a lost answer returns the same one: the SDK sends an Idempotency-Key).
const created = await ov.createVerification({ external_id: externalId, external_metadata: { plan: 'pro' } });
step('created', { id: created.id, status: created.status, mode: created.mode, url: created.url });

// 2-3. The active consent text, fetched and checked against its SHA-256, shown to the user, then accepted.
const { version, consent } = await ov.consent(created.id, (text) => {
  void text; // show `text` to the user, unchanged, and continue once they accept
});
step('consented', {
  version: version.version,
  text_sha256: version.text_sha256,
  accepted_at: consent.consent?.accepted_at,
});

// 4. Upload the selfie (multipart, signed over the fields and the file's SHA-256).
try {
  const png = selfie.toLowerCase().endsWith('.png');
  const media = await ov.uploadMedia(created.id, {
    type: 'selfie',
    file: await readFile(selfie),
    filename: png ? 'selfie.png' : 'selfie.jpg',
    contentType: png ? 'image/png' : 'image/jpeg',
  });
  step('uploaded', { media_id: media.id, type: media.type, status: media.status });
} catch (e) {
  // A photo that fails a check: the first failing check is the code; tell the user what to change.
  if (isApiError(e) && e.status === 422) step('rejected', { code: e.code, details: e.details });
  throw e;
}

// 5. Submit (test mode goes to review, live mode to the decision pipeline).
const submitted = await ov.submit(created.id);
step('submitted', { status: submitted.status, attempts_remaining: submitted.attempts_remaining });

// 6. The outcome (a webhook tells you too; polling is the fallback).
const decided = await ov.waitForDecision(created.id, { timeoutMs: 120_000, intervalMs: 1000 });
// Test mode always stops in `review`: a person decides (the admin area, or `npm run ops -- verification:decide`).
const waiting = decided.status === 'review';
step(waiting ? 'waiting for a person' : 'decided', {
  status: decided.status,
  reason: decided.reason,
  duplicate_check: decided.duplicate_check,
  external_metadata: decided.external_metadata,
  ...(waiting
    ? {
        next: `decide it at ${process.env.OPEN_VERIFY_BASE_URL}/admin, or: npm run ops -- verification:decide --id ${created.id} --status approved`,
      }
    : {}),
  webhooks:
    "signed with the workspace's active key (on the demo workspace: the live secret), whatever key signed these requests",
});

// Reconciliation: everything of this user, newest change last.
const mine = [];
for await (const v of ov.iterateVerifications({ external_id: externalId })) mine.push(v.id);
step('listed', { external_id: externalId, count: mine.length, includes_this: mine.includes(created.id) });

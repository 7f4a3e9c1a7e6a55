/**
 * Verifying a webhook (docs/webhooks.md): HMAC-SHA256 of `{X-Timestamp}.{raw body}` with the workspace's secret
 * key, compared in constant time; refused when the timestamp is 300 seconds or more away from now.
 */
import { WebhookVerificationError } from './errors.js';
import { concatBytes, hmacVerify } from './signing.js';
import type { WebhookEvent } from './types.js';

export const WEBHOOK_TOLERANCE_SECONDS = 300;

type HeaderSource = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  for (const [k, v] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (k.toLowerCase() === name) return Array.isArray(v) ? v[0] : v;
  }
  return undefined;
}

export type VerifyWebhookInput = {
  /** The raw body exactly as received (bytes, or the string they decode to): never a re-serialisation. */
  body: Uint8Array | string;
  headers: HeaderSource;
  /** The workspace's secret key; during a key rotation, both the old and the new one. */
  secret: string | string[];
  toleranceSeconds?: number;
  /** Unix seconds; for tests. */
  now?: number;
};

/** Checks a webhook and returns its event; throws WebhookVerificationError when it must not be trusted. */
export async function verifyWebhook(input: VerifyWebhookInput): Promise<WebhookEvent> {
  const ts = header(input.headers, 'x-timestamp');
  const sig = header(input.headers, 'x-hmac-signature');
  if (!ts || !/^\d{1,12}$/.test(ts)) throw new WebhookVerificationError('Missing or malformed X-Timestamp.');
  if (!sig) throw new WebhookVerificationError('Missing X-HMAC-Signature.');
  const now = input.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - Number(ts)) >= (input.toleranceSeconds ?? WEBHOOK_TOLERANCE_SECONDS)) {
    throw new WebhookVerificationError('The webhook timestamp is outside the tolerance (a replay, or a clock off).');
  }
  const message = concatBytes(`${ts}.`, input.body);
  const secrets = Array.isArray(input.secret) ? input.secret : [input.secret];
  let ok = false;
  // Every key is tried, whichever matches.
  for (const s of secrets) ok = (await hmacVerify(s, message, sig)) || ok;
  if (!ok) throw new WebhookVerificationError('The webhook signature does not match.');
  const text = typeof input.body === 'string' ? input.body : new TextDecoder().decode(input.body);
  try {
    return JSON.parse(text) as WebhookEvent;
  } catch (e) {
    throw new WebhookVerificationError('The webhook body is not JSON.', { cause: e });
  }
}

export {
  OpenVerify,
  OPERATIONS,
  DECIDED_STATUSES,
  TERMINAL_STATUSES,
  type OpenVerifyOptions,
  type UploadInput,
} from './client.js';
export { verifyWebhook, WEBHOOK_TOLERANCE_SECONDS, type VerifyWebhookInput } from './webhooks.js';
export * from './errors.js';
export type * from './types.js';
export { canonicalJson, canonicalMultipart, rfc3986, hmacHex, sha256Hex, withTimestamp } from './signing.js';

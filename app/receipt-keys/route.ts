import { serveReceiptKeys } from '@/lib/retention/keys-route';

// GET /receipt-keys – the Ed25519 public keys of erasure receipts (JWK set), public
export const GET = serveReceiptKeys;

import { serveReceiptKeys } from '@/lib/api/handlers/receipt-keys';

// GET /receipt-keys – the Ed25519 public keys of erasure receipts (JWK set), public
export const GET = serveReceiptKeys;

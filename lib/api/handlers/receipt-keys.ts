import { getDb } from '@/lib/db/client';
import { newId } from '../../core/ids';
import { errorResponse } from '../respond';
import { receiptKeys } from '../../domain/retention/receipts';

/** GET /receipt-keys: the public keys that sign erasure receipts, as a JWK set; public, cacheable. */
export async function serveReceiptKeys(): Promise<Response> {
  try {
    return new Response(JSON.stringify(await receiptKeys(getDb())), {
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'cache-control': 'public, max-age=300',
        'x-content-type-options': 'nosniff',
      },
    });
  } catch (e) {
    const requestId = newId('req');
    return errorResponse(e, requestId, { 'x-request-id': requestId });
  }
}

import { apiRoute, methodNotAllowed } from '@/lib/api/route';
import { captureWalletResponseHandler, walletResponseBody } from '@/lib/api/handlers/wallet';
import { tokenParams } from '@/lib/api/handlers/capture';

// POST /api/capture/{token}/wallet-responses – verify the wallet's answer and decide, as /v1 does (docs/wallet.md)
export const POST = apiRoute({
  auth: 'captureToken',
  params: tokenParams,
  body: walletResponseBody,
  handler: captureWalletResponseHandler,
});

export const { GET, PUT, PATCH, DELETE } = methodNotAllowed('POST');

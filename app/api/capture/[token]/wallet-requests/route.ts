import { apiRoute, methodNotAllowed } from '@/lib/api/route';
import { captureWalletRequestBody, captureWalletRequestHandler } from '@/lib/api/handlers/wallet';
import { tokenParams } from '@/lib/api/handlers/capture';

// POST /api/capture/{token}/wallet-requests – a wallet request bound to this service's own origin (docs/wallet.md)
export const POST = apiRoute({
  auth: 'captureToken',
  params: tokenParams,
  body: captureWalletRequestBody,
  handler: captureWalletRequestHandler,
});

export const { GET, PUT, PATCH, DELETE } = methodNotAllowed('POST');

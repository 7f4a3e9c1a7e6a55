import { apiRoute, methodNotAllowed } from '@/lib/api/route';
import { OPERATIONS } from '@/lib/api/operations';

// POST /v1/verifications/{id}/wallet-responses – verify a wallet's age proof and decide (docs/wallet.md)
export const POST = apiRoute(OPERATIONS.submitWalletResponse);

export const { GET, PUT, PATCH, DELETE } = methodNotAllowed('POST');

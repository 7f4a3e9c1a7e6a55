import { apiRoute, methodNotAllowed } from '@/lib/api/route';
import { OPERATIONS } from '@/lib/api/operations';

// POST /v1/verifications/{id}/wallet-requests – a Digital Credentials API request for an age proof (docs/wallet.md)
export const POST = apiRoute(OPERATIONS.createWalletRequest);

export const { GET, PUT, PATCH, DELETE } = methodNotAllowed('POST');

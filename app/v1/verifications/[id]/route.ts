import { apiRoute, methodNotAllowed } from '@/lib/api/route';
import { getVerificationOp, idParams } from '@/lib/verifications/operations';

// GET /v1/verifications/{id} – the verification with status, result, attempts and duplicate check
export const GET = apiRoute({ auth: 'apiKey', params: idParams, handler: getVerificationOp });

export const { POST, PUT, PATCH, DELETE } = methodNotAllowed('GET');

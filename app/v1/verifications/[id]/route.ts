import { apiRoute, methodNotAllowed } from '@/lib/api/route';
import { getVerificationHandler, idParams } from '@/lib/api/handlers/verifications';

// GET /v1/verifications/{id} – the verification with status, result, attempts and duplicate check
export const GET = apiRoute({ auth: 'apiKey', params: idParams, handler: getVerificationHandler });

export const { POST, PUT, PATCH, DELETE } = methodNotAllowed('GET');

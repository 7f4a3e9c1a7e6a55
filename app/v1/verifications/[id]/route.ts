import { apiRoute, methodNotAllowed } from '@/lib/api/route';
import { OPERATIONS } from '@/lib/api/operations';

// GET /v1/verifications/{id} – the verification with status, result, attempts and duplicate check
export const GET = apiRoute(OPERATIONS.getVerification);

export const { POST, PUT, PATCH, DELETE } = methodNotAllowed('GET');

import { apiRoute, methodNotAllowed } from '@/lib/api/route';
import { OPERATIONS } from '@/lib/api/operations';

// POST /v1/verifications/{id}/submit – submit for a decision (consumes one of 5 attempts)
export const POST = apiRoute(OPERATIONS.submitVerification);

export const { GET, PUT, PATCH, DELETE } = methodNotAllowed('POST');

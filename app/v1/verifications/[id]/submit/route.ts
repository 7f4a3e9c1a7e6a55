import { apiRoute, methodNotAllowed } from '@/lib/api/route';
import { idParams, submitOp } from '@/lib/verifications/operations';

// POST /v1/verifications/{id}/submit – submit for a decision (consumes one of 5 attempts)
export const POST = apiRoute({ auth: 'apiKey', params: idParams, handler: submitOp });

export const { GET, PUT, PATCH, DELETE } = methodNotAllowed('POST');

import { apiRoute, methodNotAllowed } from '@/lib/api/route';
import { idParams, submitHandler } from '@/lib/api/handlers/verifications';

// POST /v1/verifications/{id}/submit – submit for a decision (consumes one of 5 attempts)
export const POST = apiRoute({ auth: 'apiKey', params: idParams, handler: submitHandler });

export const { GET, PUT, PATCH, DELETE } = methodNotAllowed('POST');

import { apiRoute, methodNotAllowed } from '@/lib/api/route';
import { captureSubmitHandler, tokenParams } from '@/lib/api/handlers/capture';

// POST /api/capture/{token}/submit – submit the verification (spends an attempt, starts the decision)
export const POST = apiRoute({ auth: 'captureToken', params: tokenParams, handler: captureSubmitHandler });

export const { GET, PUT, PATCH, DELETE } = methodNotAllowed('POST');

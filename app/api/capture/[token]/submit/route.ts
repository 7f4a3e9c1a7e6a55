import { apiRoute, methodNotAllowed } from '@/lib/api/route';
import { captureSubmitOp, tokenParams } from '@/lib/capture/operations';

// POST /api/capture/{token}/submit – submit the verification (spends an attempt, starts the decision)
export const POST = apiRoute({ auth: 'captureToken', params: tokenParams, handler: captureSubmitOp });

export const { GET, PUT, PATCH, DELETE } = methodNotAllowed('POST');

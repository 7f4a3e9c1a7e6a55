import { apiRoute, methodNotAllowed } from '@/lib/api/route';
import { getCaptureStateOp, tokenParams } from '@/lib/capture/operations';

// GET /api/capture/{token} – the hosted page's view of its verification (token auth, rate-limited per link)
export const GET = apiRoute({ auth: 'captureToken', params: tokenParams, handler: getCaptureStateOp });

export const { POST, PUT, PATCH, DELETE } = methodNotAllowed('GET');

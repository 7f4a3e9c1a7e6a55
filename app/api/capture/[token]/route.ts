import { apiRoute, methodNotAllowed } from '@/lib/api/route';
import { captureStateHandler, tokenParams } from '@/lib/api/handlers/capture';

// GET /api/capture/{token} – the hosted page's view of its verification (token auth, rate-limited per link)
export const GET = apiRoute({ auth: 'captureToken', params: tokenParams, handler: captureStateHandler });

export const { POST, PUT, PATCH, DELETE } = methodNotAllowed('GET');

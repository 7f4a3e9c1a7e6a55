import { apiRoute, methodNotAllowed } from '@/lib/api/route';
import { captureConsentBody, captureConsentOp, tokenParams } from '@/lib/capture/operations';

// POST /api/capture/{token}/consent – accept the consent text the page showed (its version id and SHA-256)
export const POST = apiRoute({ auth: 'captureToken', params: tokenParams, body: captureConsentBody, handler: captureConsentOp });

export const { GET, PUT, PATCH, DELETE } = methodNotAllowed('POST');

import { apiRoute, methodNotAllowed } from '@/lib/api/route';
import { captureConsentBody, captureConsentHandler, tokenParams } from '@/lib/api/handlers/capture';

// POST /api/capture/{token}/consent – accept the consent text the page showed (its version id and SHA-256)
export const POST = apiRoute({
  auth: 'captureToken',
  params: tokenParams,
  body: captureConsentBody,
  handler: captureConsentHandler,
});

export const { GET, PUT, PATCH, DELETE } = methodNotAllowed('POST');

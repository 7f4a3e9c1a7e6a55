import { apiRoute, methodNotAllowed } from '@/lib/api/route';
import { acceptConsentHandler, consentBody, idParams } from '@/lib/api/handlers/verifications';

// POST /v1/verifications/{id}/consent – record the user's acceptance of the active consent text
export const POST = apiRoute({ auth: 'apiKey', params: idParams, body: consentBody, handler: acceptConsentHandler });

export const { GET, PUT, PATCH, DELETE } = methodNotAllowed('POST');

import { apiRoute, methodNotAllowed } from '@/lib/api/route';
import { acceptConsentOp, consentBody, idParams } from '@/lib/verifications/operations';

// POST /v1/verifications/{id}/consent – record the user's acceptance of the active consent text
export const POST = apiRoute({ auth: 'apiKey', params: idParams, body: consentBody, handler: acceptConsentOp });

export const { GET, PUT, PATCH, DELETE } = methodNotAllowed('POST');

import { apiRoute, methodNotAllowed } from '@/lib/api/route';
import { getActiveConsentHandler } from '@/lib/api/handlers/verifications';

// GET /v1/consent – the active consent version (id, version, text_sha256, url)
export const GET = apiRoute({ auth: 'apiKey', handler: getActiveConsentHandler });

export const { POST, PUT, PATCH, DELETE } = methodNotAllowed('GET');

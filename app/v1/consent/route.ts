import { apiRoute, methodNotAllowed } from '@/lib/api/route';
import { getActiveConsentOp } from '@/lib/verifications/operations';

// GET /v1/consent – the active consent version (id, version, text_sha256, url)
export const GET = apiRoute({ auth: 'apiKey', handler: getActiveConsentOp });

export const { POST, PUT, PATCH, DELETE } = methodNotAllowed('GET');

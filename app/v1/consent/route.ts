import { apiRoute, methodNotAllowed } from '@/lib/api/route';
import { OPERATIONS } from '@/lib/api/operations';

// GET /v1/consent – the active consent version (id, version, text_sha256, url)
export const GET = apiRoute(OPERATIONS.getActiveConsent);

export const { POST, PUT, PATCH, DELETE } = methodNotAllowed('GET');

import { apiRoute, methodNotAllowed } from '@/lib/api/route';
import { OPERATIONS } from '@/lib/api/operations';

// POST /v1/verifications/{id}/consent – record the user's acceptance of the active consent text
export const POST = apiRoute(OPERATIONS.acceptConsent);

export const { GET, PUT, PATCH, DELETE } = methodNotAllowed('POST');

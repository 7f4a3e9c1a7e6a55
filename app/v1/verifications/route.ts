import { apiRoute, methodNotAllowed } from '@/lib/api/route';
import { createVerificationBody } from '@/lib/verifications/create';
import { createVerificationHandler } from '@/lib/api/handlers/verifications';

// POST /v1/verifications – create a verification session
export const POST = apiRoute({ auth: 'apiKeyUnsignedAllowed', body: createVerificationBody, handler: createVerificationHandler });

export const { GET, PUT, PATCH, DELETE } = methodNotAllowed('POST');

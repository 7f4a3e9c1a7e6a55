import { apiRoute, methodNotAllowed } from '@/lib/api/route';
import { createVerificationBody } from '@/lib/verifications';
import { createVerificationOp } from '@/lib/verifications/operations';

// POST /v1/verifications – create a verification session
export const POST = apiRoute({ auth: 'apiKeyUnsignedAllowed', body: createVerificationBody, handler: createVerificationOp });

export const { GET, PUT, PATCH, DELETE } = methodNotAllowed('POST');

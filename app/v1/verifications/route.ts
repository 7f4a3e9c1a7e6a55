import { apiRoute, methodNotAllowed } from '@/lib/api/route';
import { createVerificationBody } from '@/lib/verifications/create';
import { listVerificationsQuery } from '@/lib/verifications/list';
import { createVerificationHandler, listVerificationsHandler } from '@/lib/api/handlers/verifications';

// POST /v1/verifications – create a verification session
export const POST = apiRoute({ auth: 'apiKeyUnsignedAllowed', body: createVerificationBody, handler: createVerificationHandler });

// GET /v1/verifications?external_id=&status=&updated_since=&limit=&cursor= – reconciliation (extension)
export const GET = apiRoute({ auth: 'apiKey', query: listVerificationsQuery, handler: listVerificationsHandler });

export const { PUT, PATCH, DELETE } = methodNotAllowed('GET', 'POST');

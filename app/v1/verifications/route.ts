import { apiRoute, methodNotAllowed } from '@/lib/api/route';
import { OPERATIONS } from '@/lib/api/operations';

// POST /v1/verifications – create a verification session
export const POST = apiRoute(OPERATIONS.createVerification);

// GET /v1/verifications?external_id=&status=&updated_since=&limit=&cursor= – reconciliation (extension)
export const GET = apiRoute(OPERATIONS.listVerifications);

export const { PUT, PATCH, DELETE } = methodNotAllowed('GET', 'POST');

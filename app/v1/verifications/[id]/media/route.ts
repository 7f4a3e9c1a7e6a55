import { apiRoute, methodNotAllowed } from '@/lib/api/route';
import { OPERATIONS } from '@/lib/api/operations';

// POST /v1/verifications/{id}/media – upload and validate a selfie or document image (multipart)
export const POST = apiRoute(OPERATIONS.uploadMedia);

export const { GET, PUT, PATCH, DELETE } = methodNotAllowed('POST');

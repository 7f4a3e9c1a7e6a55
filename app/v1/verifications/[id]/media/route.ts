import { apiRoute, methodNotAllowed } from '@/lib/api/route';
import { idParams, mediaFields, uploadMediaOp } from '@/lib/verifications/operations';

// POST /v1/verifications/{id}/media – upload and validate a selfie or document image (multipart)
export const POST = apiRoute({ auth: 'apiKey', params: idParams, multipart: true, body: mediaFields, handler: uploadMediaOp });

export const { GET, PUT, PATCH, DELETE } = methodNotAllowed('POST');

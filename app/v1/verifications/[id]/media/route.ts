import { apiRoute, methodNotAllowed } from '@/lib/api/route';
import { idParams, mediaFields, uploadMediaHandler } from '@/lib/api/handlers/verifications';

// POST /v1/verifications/{id}/media – upload and validate a selfie or document image (multipart)
export const POST = apiRoute({ auth: 'apiKey', params: idParams, multipart: true, body: mediaFields, handler: uploadMediaHandler });

export const { GET, PUT, PATCH, DELETE } = methodNotAllowed('POST');

import { apiRoute, methodNotAllowed } from '@/lib/api/route';
import { mediaFields } from '@/lib/verifications/operations';
import { captureUploadOp, tokenParams } from '@/lib/capture/operations';

// POST /api/capture/{token}/media – a selfie or document image from the page (multipart, validated as /v1)
export const POST = apiRoute({ auth: 'captureToken', params: tokenParams, multipart: true, body: mediaFields, handler: captureUploadOp });

export const { GET, PUT, PATCH, DELETE } = methodNotAllowed('POST');

import { apiRoute, methodNotAllowed } from '@/lib/api/route';
import { mediaFields } from '@/lib/api/handlers/verifications';
import { captureUploadHandler, tokenParams } from '@/lib/api/handlers/capture';

// POST /api/capture/{token}/media – a selfie or document image from the page (multipart, validated as /v1)
export const POST = apiRoute({
  auth: 'captureToken',
  params: tokenParams,
  multipart: true,
  body: mediaFields,
  handler: captureUploadHandler,
});

export const { GET, PUT, PATCH, DELETE } = methodNotAllowed('POST');

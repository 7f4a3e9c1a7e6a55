import { methodNotAllowed } from '@/lib/api/route';
import { serveOpenApi } from '@/lib/api/handlers/openapi';

// GET /v1/openapi.json – the OpenAPI 3.1 document of /v1, generated from lib/api/operations.ts; public
export const GET = serveOpenApi;

export const { POST, PUT, PATCH, DELETE } = methodNotAllowed('GET');

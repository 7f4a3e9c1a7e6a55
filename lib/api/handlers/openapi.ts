import { newId } from '../../core/ids';
import { env } from '../../core/env';
import { errorResponse } from '../respond';
import { openApiDocument } from '../openapi';

/** GET /v1/openapi.json: the OpenAPI 3.1 document generated from the route registry; public, cacheable. */
export async function serveOpenApi(): Promise<Response> {
  const requestId = newId('req');
  try {
    return new Response(JSON.stringify(openApiDocument(env().BASE_URL)), {
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'cache-control': 'public, max-age=300',
        'access-control-allow-origin': '*',
        'x-content-type-options': 'nosniff',
        'x-request-id': requestId,
      },
    });
  } catch (e) {
    return errorResponse(e, requestId, { 'x-request-id': requestId });
  }
}

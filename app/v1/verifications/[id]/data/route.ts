import { apiRoute, methodNotAllowed } from '@/lib/api/route';
import { idParams } from '@/lib/api/handlers/verifications';
import { eraseDataHandler } from '@/lib/api/handlers/retention';

// DELETE /v1/verifications/{id}/data – erase its photos, face data and personal fields now; a signed receipt
export const DELETE = apiRoute({ auth: 'apiKey', params: idParams, handler: eraseDataHandler });

export const { GET, POST, PUT, PATCH } = methodNotAllowed('DELETE');

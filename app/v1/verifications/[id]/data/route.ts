import { apiRoute, methodNotAllowed } from '@/lib/api/route';
import { OPERATIONS } from '@/lib/api/operations';

// DELETE /v1/verifications/{id}/data – erase its photos, face data and personal fields now; a signed receipt
export const DELETE = apiRoute(OPERATIONS.eraseVerificationData);

export const { GET, POST, PUT, PATCH } = methodNotAllowed('DELETE');

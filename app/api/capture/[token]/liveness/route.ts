import { apiRoute, methodNotAllowed } from '@/lib/api/route';
import { captureChallengeHandler, challengeRequest, tokenParams } from '@/lib/api/handlers/capture';

// POST /api/capture/{token}/liveness – a new head-turn challenge: random poses and a single-use nonce
export const POST = apiRoute({
  auth: 'captureToken',
  params: tokenParams,
  body: challengeRequest,
  handler: captureChallengeHandler,
});

export const { GET, PUT, PATCH, DELETE } = methodNotAllowed('POST');

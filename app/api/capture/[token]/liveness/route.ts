import { apiRoute, methodNotAllowed } from '@/lib/api/route';
import { captureChallengeOp, challengeRequest, tokenParams } from '@/lib/capture/operations';

// POST /api/capture/{token}/liveness – a new head-turn challenge: random poses and a single-use nonce
export const POST = apiRoute({ auth: 'captureToken', params: tokenParams, body: challengeRequest, handler: captureChallengeOp });

export const { GET, PUT, PATCH, DELETE } = methodNotAllowed('POST');

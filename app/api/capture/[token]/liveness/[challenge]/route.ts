import { apiRoute, methodNotAllowed } from '@/lib/api/route';
import { captureChallengeFramesHandler, challengeFields, challengeParams } from '@/lib/api/handlers/capture';

// POST /api/capture/{token}/liveness/{challenge} – the challenge's frames (multipart: nonce, frame_0 … frame_n), analysed once
export const POST = apiRoute({
  auth: 'captureToken',
  params: challengeParams,
  multipart: true,
  body: challengeFields,
  handler: captureChallengeFramesHandler,
});

export const { GET, PUT, PATCH, DELETE } = methodNotAllowed('POST');

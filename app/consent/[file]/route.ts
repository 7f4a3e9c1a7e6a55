import { serveConsentText } from '@/lib/consent/text-route';
import { methodNotAllowed } from '@/lib/api/route';

// GET /consent/{id}.txt – the exact consent text, public
export const GET = serveConsentText;

export const { POST, PUT, PATCH, DELETE } = methodNotAllowed('GET');

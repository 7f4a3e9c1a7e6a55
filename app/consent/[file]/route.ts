import { serveConsentText } from '@/lib/api/handlers/consent-text';
import { methodNotAllowed } from '@/lib/api/route';

// GET /consent/{id}.txt – the exact consent text, public
export const GET = serveConsentText;

export const { POST, PUT, PATCH, DELETE } = methodNotAllowed('GET');

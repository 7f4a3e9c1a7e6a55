import { serveConsentTextIn } from '@/lib/api/handlers/consent-text';
import { methodNotAllowed } from '@/lib/api/route';

// GET /consent/{id}/{locale}.txt – the exact consent text in one language, public
export const GET = serveConsentTextIn;

export const { POST, PUT, PATCH, DELETE } = methodNotAllowed('GET');

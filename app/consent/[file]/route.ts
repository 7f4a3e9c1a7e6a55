import { serveConsentText } from '@/lib/consent/text-route';

// GET /consent/{id}.txt – the exact consent text, public
export const GET = serveConsentText;

import { readyz } from '@/app/healthz/health';
import { methodNotAllowed } from '@/lib/api/route';

// GET /readyz – ready for traffic: database reachable, migrations current, analysis workers alive, not draining
export const GET = readyz;

export const { POST, PUT, PATCH, DELETE } = methodNotAllowed('GET');

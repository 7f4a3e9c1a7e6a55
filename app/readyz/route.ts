import { readyz } from '@/lib/health';

// GET /readyz – ready for traffic: database reachable, migrations current, analysis workers alive, not draining
export const GET = readyz;

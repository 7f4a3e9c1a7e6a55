import { healthz } from '@/app/healthz/health';
import { methodNotAllowed } from '@/lib/api/route';

// GET /healthz – the process is up and serving HTTP (no dependency is consulted)
export const GET = healthz;

export const { POST, PUT, PATCH, DELETE } = methodNotAllowed('GET');

import { healthz } from '@/lib/health';

// GET /healthz – the process is up and serving HTTP (no dependency is consulted)
export const GET = healthz;

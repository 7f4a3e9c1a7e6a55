import { getDb } from '@/lib/db/client';
import { env } from '@/lib/core/env';
import { methodNotAllowed } from '@/lib/api/route';
import { metricsEndpoint } from '@/app/metrics/scrape';

export const dynamic = 'force-dynamic';

// GET /metrics – Prometheus metrics of this process; 404 unless METRICS_TOKEN is set, then 401 without it
export const GET = (req: Request) => metricsEndpoint(req, getDb);

/** Other methods: as absent as the page itself while metrics are off, else 405. */
const other = (method: 'POST' | 'PUT' | 'PATCH' | 'DELETE') => (req: Request) =>
  env().METRICS_TOKEN ? methodNotAllowed('GET')[method]() : metricsEndpoint(req, getDb);
export const POST = other('POST');
export const PUT = other('PUT');
export const PATCH = other('PATCH');
export const DELETE = other('DELETE');

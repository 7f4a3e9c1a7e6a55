import { notFoundRoute } from '@/lib/api/route';

// Any other /api path – 404 in the error envelope, never an HTML page
export const GET = notFoundRoute;
export const POST = notFoundRoute;
export const PUT = notFoundRoute;
export const PATCH = notFoundRoute;
export const DELETE = notFoundRoute;

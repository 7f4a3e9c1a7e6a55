import { authEndpoint } from '@/app/admin/_auth/nextauth';

// GET, POST /api/auth/* – Auth.js: single sign-on redirects and callbacks, session, sign-out (app/admin/_auth/nextauth.ts)
export const GET = authEndpoint;
export const POST = authEndpoint;

import { handlers } from '@/lib/admin/auth/nextauth';

// GET, POST /api/auth/* – Auth.js: single sign-on redirects and callbacks, session, sign-out (lib/admin/auth/nextauth.ts)
export const { GET, POST } = handlers;

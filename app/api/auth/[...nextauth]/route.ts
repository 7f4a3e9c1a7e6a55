import { handlers } from '@/lib/domain/admin/auth/nextauth';

// GET, POST /api/auth/* – Auth.js: single sign-on redirects and callbacks, session, sign-out (lib/domain/admin/auth/nextauth.ts)
export const { GET, POST } = handlers;

/**
 * Auth.js (next-auth v5) for the admin area. Sessions are JWTs in an HttpOnly, SameSite=Lax cookie
 * (Secure, with the __Secure- prefix, when BASE_URL is https) that carry only the id of an admin_sessions
 * row: lib/domain/admin/auth/sessions.ts decides on every request whether that row is still good.
 *
 * Providers: `ticket`, a credentials provider that redeems the one-time ticket our own sign-in steps
 * issue once the password (and the second factor, when due) passed, so all checking stays in lib/; and,
 * when AUTH_OIDC_* are set, `oidc`, a generic OpenID Connect provider for single sign-on, which signs in
 * existing admins only (matched by verified email).
 */
import { Auth } from '@auth/core';
import NextAuth, { type NextAuthConfig } from 'next-auth';
import Credentials from 'next-auth/providers/credentials';
import { headers } from 'next/headers';
import { getDb } from '@/lib/db/client';
import { env, pinAuthUrl } from '@/lib/core/env';
import { log } from '@/lib/core/log';
import { redeemTicket, sessionLimits } from '@/lib/domain/admin/auth/sessions';
import { ssoStep } from '@/lib/domain/admin/auth/sign-in';
import { clientAddressOf } from '@/lib/domain/auth/client-address';
import { authSecret } from '@/lib/domain/admin/auth/secret';
import { adminIdByEmail } from '@/lib/domain/admin/members';

declare module 'next-auth' {
  interface User {
    sessionId?: string;
  }
  interface Session {
    sid?: string;
  }
}
declare module '@auth/core/jwt' {
  interface JWT {
    sid?: string;
  }
}

export const oidcEnabled = () => !!env().AUTH_OIDC_ISSUER;

/**
 * The browser's address and agent, for the throttle and the session list. The address is the one the service's
 * HTTP server resolved from the connection (and from X-Forwarded-For only behind a proxy in TRUSTED_PROXIES).
 */
export async function requestClient(): Promise<{ ip: string | null; userAgent: string | null }> {
  const h = await headers();
  return { ip: clientAddressOf(h)?.slice(0, 64) ?? null, userAgent: h.get('user-agent') };
}

function config(): NextAuthConfig {
  pinAuthUrl();
  const e = env();
  const providers: NextAuthConfig['providers'] = [
    Credentials({
      id: 'ticket',
      credentials: { ticket: {} },
      authorize: async (c) => {
        const r = await redeemTicket(getDb(), String(c?.ticket ?? ''), new Date());
        return r ? { id: r.userId, sessionId: r.sessionId } : null;
      },
    }),
  ];
  if (e.AUTH_OIDC_ISSUER && e.AUTH_OIDC_ID && e.AUTH_OIDC_SECRET) {
    providers.push({
      id: 'oidc',
      name: e.AUTH_OIDC_NAME,
      type: 'oidc',
      issuer: e.AUTH_OIDC_ISSUER,
      clientId: e.AUTH_OIDC_ID,
      clientSecret: e.AUTH_OIDC_SECRET,
      checks: ['pkce', 'state', 'nonce'],
      authorization: { params: { scope: 'openid email profile' } },
      // The email from the userinfo endpoint (checked against the ID token's subject): providers that
      // keep scope claims out of the ID token (as OpenID Connect allows) still name the admin.
      idToken: false,
    });
  }
  return {
    secret: authSecret(),
    basePath: '/api/auth',
    trustHost: true,
    useSecureCookies: e.BASE_URL.startsWith('https://'),
    session: { strategy: 'jwt', maxAge: Math.floor(sessionLimits().maxMs / 1000) },
    pages: { signIn: '/admin/sign-in', error: '/admin/sign-in' },
    providers,
    logger: {
      error: (err) => log.warn('auth', { err: err.message, type: (err as { type?: string }).type }),
      warn: (code) => log.debug('auth warning', { code }),
      debug: () => {},
    },
    callbacks: {
      /** Single sign-on admits existing admins only (no account is created by signing in). */
      async signIn({ account, profile }) {
        if (account?.provider !== 'oidc') return true;
        const email = typeof profile?.email === 'string' ? profile.email.toLowerCase() : '';
        if (!email || profile?.email_verified === false) return false;
        return (await adminIdByEmail(getDb(), email)) !== null;
      },
      async jwt({ token, user, account, profile, trigger }) {
        if (trigger !== 'signIn' && trigger !== 'signUp') return token;
        if (account?.provider === 'oidc') {
          const r = await ssoStep(getDb(), {
            email: profile?.email,
            emailVerified: profile?.email_verified,
            ...(await requestClient()),
            now: new Date(),
          });
          return r.ok ? { sid: r.sessionId } : null;
        }
        return user?.sessionId ? { sid: user.sessionId } : null;
      },
      session({ session, token }) {
        // Only the row id: who the admin is and what they may do is read from the database per request.
        return { expires: session.expires, sid: token.sid } as typeof session;
      },
    },
  };
}

export const { auth, signIn, signOut } = NextAuth(() => config());

/**
 * Auth.js's endpoints (/api/auth/*: providers, sign-in and callbacks, session, sign-out) answered for a request
 * whose URL is on BASE_URL's origin, so every URL they write (redirects, callback URLs, the callback-url cookie)
 * is on the address the browser uses. next-auth's own handlers pass Next.js's request on, whose URL names a loopback
 * address (127.0.0.1, [::1]) `localhost`: with BASE_URL http://127.0.0.1:3000 they redirected to localhost:3000,
 * where the browser holds none of the session's cookies. The path and query are the request's; the origin is
 * BASE_URL's, never the Host header's.
 */
export function authEndpoint(req: Request & { nextUrl?: URL }): Promise<Response> {
  const target = req.nextUrl ?? new URL(req.url);
  const url = new URL(target.pathname + target.search, env().BASE_URL);
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  const init: RequestInit & { duplex?: 'half' } = {
    method: req.method,
    headers: req.headers,
    body: hasBody ? req.body : undefined,
    duplex: 'half',
  };
  return Auth(new Request(url, init), config());
}

/**
 * Security headers (Next 16 Proxy) of the two front doors people use in a browser.
 *
 * The hosted capture page: a CSP allowing only this origin, with a per-request nonce for Next's own inline
 * scripts and 'wasm-unsafe-eval' for tfjs's wasm backend; the camera allowed for this origin only; no
 * referrer (the page's URL carries the verification's token); never cached; framed only by the origins its
 * workspace lists in `embed_origins` (lib/domain/capture/embed.ts; loopback ones in test mode only), else never.
 *
 * The admin area (and Auth.js's endpoints): the same nonce CSP without wasm or camera, never framed,
 * never cached (`no-store`: pages and photos hold personal data), never indexed. Form submissions may go
 * to this origin and, when single sign-on is configured, to the identity provider.
 *
 * And the admin area's defence against cross-site request forgery: a state-changing request (a server action,
 * a form post) that does not come from BASE_URL's origin is refused with 403 before Next.js runs it
 * (lib/api/same-origin.ts).
 */
import { NextResponse, type NextRequest } from 'next/server';
import { env } from './lib/core/env';
import { CAPTURE_PATH_HEADER } from './i18n/capture-header';
import { crossSiteProblem } from './lib/api/same-origin';
import { getDb } from './lib/db/client';
import { frameAncestors } from './lib/core/embed-origins';
import { embedOriginsForToken } from './lib/domain/capture/embed';
import { log } from './lib/core/log';

export function capturePageCsp(nonce: string, embedOrigins: readonly string[] = []) {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic' 'wasm-unsafe-eval'`,
    `style-src 'self' 'nonce-${nonce}'`,
    "img-src 'self' data: blob:",
    "media-src 'self' blob:",
    "connect-src 'self'",
    "worker-src 'self' blob:",
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    frameAncestors(embedOrigins),
  ].join('; ');
}

export function adminCsp(nonce: string, ssoOrigin: string | null) {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'`,
    `style-src 'self' 'nonce-${nonce}'`,
    "img-src 'self' data:",
    "connect-src 'self'",
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    `form-action 'self'${ssoOrigin ? ` ${ssoOrigin}` : ''}`,
    "frame-ancestors 'none'",
  ].join('; ');
}

const ssoOrigin = () => {
  const issuer = env().AUTH_OIDC_ISSUER;
  return issuer ? new URL(issuer).origin : null;
};

/** The origins that may frame this capture page; none when the lookup fails (the page is then never framed). */
async function embedOrigins(pathname: string): Promise<string[]> {
  const m = /^\/verify\/([^/]+)\/?$/.exec(pathname);
  if (!m) return [];
  try {
    return await embedOriginsForToken(getDb(), m[1]);
  } catch (e) {
    log.warn('capture page: embed origins not read; the page refuses every frame', {
      err: e instanceof Error ? e.message : String(e),
    });
    return [];
  }
}

export async function proxy(request: NextRequest) {
  const forged = crossSiteProblem(request.method, request.nextUrl.pathname, request.headers, env().BASE_URL);
  if (forged) {
    return new NextResponse(`Forbidden: ${forged}\n`, {
      status: 403,
      headers: {
        'content-type': 'text/plain; charset=utf-8',
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
      },
    });
  }
  const nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString('base64');
  const admin = !request.nextUrl.pathname.startsWith('/verify/');
  const framers = admin ? [] : await embedOrigins(request.nextUrl.pathname);
  const csp = admin ? adminCsp(nonce, ssoOrigin()) : capturePageCsp(nonce, framers);
  const requestHeaders = new Headers(request.headers);
  requestHeaders.set('x-nonce', nonce);
  requestHeaders.set('content-security-policy', csp);
  // The admin pages send a signed-out visitor to sign-in and back to where they were going.
  if (admin) requestHeaders.set('x-admin-path', request.nextUrl.pathname + request.nextUrl.search);
  // The capture page's language is chosen from its link (i18n/capture.ts), by the root layout as by the page; a
  // request to any other page has no such header, whatever the client sent (they are all English).
  if (admin) requestHeaders.delete(CAPTURE_PATH_HEADER);
  else requestHeaders.set(CAPTURE_PATH_HEADER, request.nextUrl.pathname + request.nextUrl.search);
  const res = NextResponse.next({ request: { headers: requestHeaders } });
  res.headers.set('content-security-policy', csp);
  res.headers.set(
    'permissions-policy',
    admin
      ? 'camera=(), microphone=(), geolocation=(), payment=(), usb=()'
      : 'camera=(self), microphone=(), geolocation=(), payment=(), usb=()',
  );
  res.headers.set('referrer-policy', 'no-referrer');
  res.headers.set('x-content-type-options', 'nosniff');
  // A page its workspace lets some origins frame has frame-ancestors only (X-Frame-Options cannot name them).
  if (!framers.length) res.headers.set('x-frame-options', 'DENY');
  res.headers.set('cache-control', 'no-store');
  if (admin) {
    res.headers.set('x-robots-tag', 'noindex, nofollow');
    res.headers.set('cross-origin-opener-policy', 'same-origin');
    res.headers.set('cross-origin-resource-policy', 'same-origin');
  }
  return res;
}

export const config = { matcher: ['/verify/:path*', '/admin', '/admin/:path*', '/api/auth/:path*'] };

/**
 * Security headers of the hosted capture page (Next 16 Proxy): a CSP allowing only this origin, with a
 * per-request nonce for Next's own inline scripts and 'wasm-unsafe-eval' for tfjs's wasm backend; the
 * camera allowed for this origin only; no referrer (the page's URL carries the verification's token);
 * never cached; never framed.
 */
import { NextResponse, type NextRequest } from 'next/server';

export function capturePageCsp(nonce: string) {
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
    "frame-ancestors 'none'",
  ].join('; ');
}

export function proxy(request: NextRequest) {
  const nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString('base64');
  const csp = capturePageCsp(nonce);
  const requestHeaders = new Headers(request.headers);
  requestHeaders.set('x-nonce', nonce);
  requestHeaders.set('content-security-policy', csp);
  const res = NextResponse.next({ request: { headers: requestHeaders } });
  res.headers.set('content-security-policy', csp);
  res.headers.set('permissions-policy', 'camera=(self), microphone=(), geolocation=(), payment=(), usb=()');
  res.headers.set('referrer-policy', 'no-referrer');
  res.headers.set('x-content-type-options', 'nosniff');
  res.headers.set('x-frame-options', 'DENY');
  res.headers.set('cache-control', 'no-store');
  return res;
}

export const config = { matcher: '/verify/:path*' };

/**
 * Cross-site request forgery, for what a browser's cookie authorises (SECURITY.md, "Admin form posts"): every
 * state-changing request to the admin area (its server actions and form posts) and to Auth.js must say it comes
 * from this deployment's own origin, BASE_URL's, with an `Origin` header, or, where a browser sends none,
 * `Sec-Fetch-Site: same-origin`. Anything else is refused with 403 by proxy.ts before Next.js runs the action.
 *
 * The origin is BASE_URL's, never the request's Host or X-Forwarded-Host, which a client (or anyone between it
 * and the server) can set. A loopback BASE_URL (the local default, http://localhost:3000) also accepts the other
 * loopback spellings of the same scheme and port.
 */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Paths whose state-changing requests a browser's session cookie authorises. */
export function isCookieGuardedPath(pathname: string): boolean {
  if (pathname === '/admin' || pathname.startsWith('/admin/')) return true;
  // The identity provider's redirect back may be a cross-site POST (form_post); it carries its own proof
  // (state, PKCE and nonce, checked by Auth.js), not a cookie's authority.
  return pathname.startsWith('/api/auth/') && !pathname.startsWith('/api/auth/callback/');
}

function sameOrigin(origin: string, expected: URL): boolean {
  let o: URL;
  try {
    o = new URL(origin);
  } catch {
    return false;
  }
  if (o.origin === expected.origin) return true;
  return (
    LOOPBACK.has(expected.hostname) &&
    LOOPBACK.has(o.hostname) &&
    o.protocol === expected.protocol &&
    o.port === expected.port
  );
}

/** The `host[:port]`s that are BASE_URL's origin (Next.js's serverActions.allowedOrigins takes hosts). */
export function sameOriginHosts(baseUrl: string): string[] {
  const u = new URL(baseUrl);
  const port = u.port ? `:${u.port}` : '';
  return LOOPBACK.has(u.hostname) ? [...LOOPBACK].map((h) => h + port) : [u.host];
}

/** Why this request must be refused (a sentence), or null when it may go on. */
export function crossSiteProblem(
  method: string,
  pathname: string,
  headers: Pick<Headers, 'get'>,
  baseUrl: string,
): string | null {
  if (SAFE_METHODS.has(method.toUpperCase()) || !isCookieGuardedPath(pathname)) return null;
  const origin = headers.get('origin');
  const expected = new URL(baseUrl);
  if (origin !== null)
    return sameOrigin(origin, expected)
      ? null
      : `This form was sent from another site (${origin.slice(0, 200)}), not from ${expected.origin}.`;
  if (headers.get('sec-fetch-site') === 'same-origin') return null;
  return `This form must be sent from ${expected.origin} by a browser (the request has no Origin).`;
}

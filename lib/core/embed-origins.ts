/**
 * The origins a workspace lets frame its hosted capture page (the setting `embed_origins`, docs/sdks.md
 * "Embedding the flow"). An origin is a scheme, a host and an optional port, nothing else: `https://` for
 * any host; `http://` only for a loopback host (localhost, 127.0.0.1, [::1]), which a page honours for
 * test-mode verifications only, so a live verification is never framed by a page without TLS.
 */

export const MAX_EMBED_ORIGINS = 20;

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Why `s` is not an origin the setting accepts, or null (then `normalizeEmbedOrigin(s)` is its form). */
export function embedOriginProblem(s: string): string | null {
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    return 'not an origin (scheme://host[:port])';
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return 'https:// only';
  if (u.protocol === 'http:' && !LOOPBACK_HOSTS.has(u.hostname))
    return 'https:// only (http:// for localhost in test mode)';
  // An origin has no user, path, query or fragment: "https://a.example/" is refused too, so what is stored is what was typed.
  if (u.username || u.password || u.search || u.hash || u.origin === 'null' || s !== u.origin)
    return 'an origin only (scheme://host[:port], no path, no trailing slash, lower case)';
  if (u.hostname.includes('*')) return 'no wildcards';
  return null;
}

export const isLoopbackOrigin = (origin: string) => {
  const u = new URL(origin);
  return u.protocol === 'http:' && LOOPBACK_HOSTS.has(u.hostname);
};

/** The origins that may frame a verification of this mode: loopback ones in test mode only. */
export function embedOriginsFor(origins: readonly string[], mode: 'test' | 'live'): string[] {
  return origins.filter((o) => embedOriginProblem(o) === null && (mode === 'test' || !isLoopbackOrigin(o)));
}

/** The CSP directive for those origins: `'none'` when there are none. */
export function frameAncestors(origins: readonly string[]): string {
  return `frame-ancestors ${origins.length ? origins.join(' ') : "'none'"}`;
}

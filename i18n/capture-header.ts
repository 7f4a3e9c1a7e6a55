/** Set by the proxy (proxy.ts) on /verify/… requests only, and removed from any other it handles: their path and query. */
export const CAPTURE_PATH_HEADER = 'x-capture-path';

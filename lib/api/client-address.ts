/**
 * The client's address, as the service's own HTTP server saw it (scripts/serve.ts puts it in this header,
 * replacing whatever a client sent): the socket's peer, or, behind reverse proxies the operator declared
 * (ADMIN_TRUSTED_PROXIES = n), the address the n-th proxy from the right appended to X-Forwarded-For. A client
 * cannot choose it by sending headers. Used to count failed signatures per key and address
 * (signature-failures.ts).
 */
import { serverHeadersTrusted } from '../auth/canonical';

export const CLIENT_ADDRESS_HEADER = 'x-ov-client-address';

/** What the server says the peer is; `unknown` where no server of ours set it (route handlers called in tests). */
export function clientAddressOf(req: Request): string {
  return (serverHeadersTrusted() ? req.headers.get(CLIENT_ADDRESS_HEADER) : null) || 'unknown';
}

/**
 * The client of a request that reached this server from `socketAddress` with `forwardedFor`, given `trustedProxies`
 * proxies in front: 0, the socket's peer (a forwarded header is anyone's to write); n, the entry the n-th proxy
 * appended (the list is read from the right; a shorter list than that names its first entry).
 */
export function peerAddress(socketAddress: string | undefined, forwardedFor: string | string[] | undefined, trustedProxies: number): string {
  const peer = socketAddress ?? 'unknown';
  if (trustedProxies <= 0) return peer;
  const header = Array.isArray(forwardedFor) ? forwardedFor.join(',') : (forwardedFor ?? '');
  const chain = [...header.split(',').map((s) => s.trim()).filter(Boolean), peer];
  return chain[Math.max(0, chain.length - 1 - trustedProxies)].slice(0, 64);
}

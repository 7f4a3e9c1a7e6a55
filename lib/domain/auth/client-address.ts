/**
 * Who is on the other end of a request, and which forwarded headers to believe (SECURITY.md, "Client addresses
 * and forwarded headers"). One answer for the whole service: the API's count of wrong signatures and its rate
 * limits, the admin sign-in throttle and the admin session list all read it. By default no forwarded header is
 * believed; only a connection from a proxy named in TRUSTED_PROXIES has its X-Forwarded-* kept. The service's
 * HTTP server (server/serve.ts) decides this per connection and puts the address in CLIENT_ADDRESS_HEADER;
 * readers trust that header only when that server says it set it. In full: docs/architecture.md "Notes behind
 * the code".
 */
import ipaddr from 'ipaddr.js';
import { serverHeadersTrusted } from './canonical';

export const CLIENT_ADDRESS_HEADER = 'x-ov-client-address';

/** The forwarded headers a proxy sets, dropped from requests that did not come through a trusted one. */
export const FORWARDED_HEADERS = [
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-forwarded-port',
  'forwarded',
  'x-real-ip',
] as const;

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** An address as one canonical text (IPv4-mapped IPv6 as the IPv4 it carries); null when it is not an address. */
export function normalAddress(s: string): string | null {
  const t = s.trim().replace(/^\[(.*)\]$/, '$1');
  if (!ipaddr.isValid(t)) return null;
  return ipaddr.process(t).toString();
}

/** Parses TRUSTED_PROXIES (comma-separated addresses or CIDR ranges); throws on an entry that is neither. */
export function parseTrustedProxies(list: string): Range[] {
  return list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s): Range => {
      if (s.includes('/')) {
        const [addr, bits] = ipaddr.parseCIDR(s);
        // An IPv4-mapped range is the IPv4 range it carries (addresses are compared in that form).
        return addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()
          ? [(addr as ipaddr.IPv6).toIPv4Address(), bits - 96]
          : [addr, bits];
      }
      const addr = ipaddr.process(s);
      return [addr, addr.kind() === 'ipv4' ? 32 : 128];
    });
}

export function trustsProxy(ranges: Range[], address: string): boolean {
  const a = normalAddress(address);
  if (a === null) return false;
  const parsed = ipaddr.parse(a);
  return ranges.some(([net, bits]) => net.kind() === parsed.kind() && parsed.match(net, bits));
}

/**
 * The client's address: the connection's peer, or, when the peer is a trusted proxy, the nearest untrusted
 * address of X-Forwarded-For (an entry that is not an address ends the walk at the last hop believed).
 */
export function resolveClientAddress(
  peer: string | null | undefined,
  forwardedFor: string | string[] | null | undefined,
  ranges: Range[],
): string | null {
  const socket = peer ? normalAddress(peer) : null;
  if (socket === null) return null;
  if (!trustsProxy(ranges, socket)) return socket;
  const chain = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : (forwardedFor ?? ''))
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  let client = socket;
  for (let i = chain.length - 1; i >= 0; i--) {
    const hop = normalAddress(chain[i]);
    if (hop === null) break;
    client = hop;
    if (!trustsProxy(ranges, hop)) break;
  }
  return client;
}

/**
 * The client's address as the service's HTTP server resolved it; null where no server of ours set it (route
 * handlers called directly in tests, `next dev`).
 */
export function clientAddressOf(from: Request | Pick<Headers, 'get'>): string | null {
  // Headers-like first: Next's ReadonlyHeaders is a proxy that answers `in` for any name.
  const headers =
    typeof (from as Pick<Headers, 'get'>).get === 'function'
      ? (from as Pick<Headers, 'get'>)
      : (from as Request).headers;
  return serverHeadersTrusted() ? headers.get(CLIENT_ADDRESS_HEADER) : null;
}

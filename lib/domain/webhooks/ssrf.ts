/**
 * Where webhooks may go: https:// only, and only to public unicast addresses. One table decides, for an
 * address written in the URL and for every address a name resolves to, and it is applied again to the
 * address the socket actually connects to (lib/domain/webhooks/deliver.ts), so neither DNS nor a spelling of an IP
 * literal can reach loopback, private, link-local, CGNAT, multicast or reserved space.
 * WEBHOOK_ALLOW_PRIVATE_TARGETS=1 lifts the address rule (local demos, tests), never the https rule; the one
 * exception to https is a loopback receiver of test-mode events on a loopback http:// BASE_URL. The table and the
 * exception in full: docs/architecture.md "Notes behind the code", docs/webhooks.md.
 */
import ipaddr from 'ipaddr.js';
import { env } from '../../core/env';

const NAT64_WKP = ipaddr.parseCIDR('64:ff9b::/96');
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/** The IPv4 address an IPv6 address stands for, where that is the whole of its meaning. */
function embeddedV4(a: ipaddr.IPv6): ipaddr.IPv4 | null {
  if (a.isIPv4MappedAddress()) return a.toIPv4Address();
  if (a.match(NAT64_WKP)) {
    const p = a.parts;
    return new ipaddr.IPv4([p[6] >> 8, p[6] & 255, p[7] >> 8, p[7] & 255]);
  }
  return null;
}

/**
 * null when a webhook may be delivered to this address, else why not (its special-purpose range).
 * Only canonical forms are addresses here (dotted-quad IPv4, RFC 4291 IPv6): `127.1` or `0x7f.0.0.1` are not.
 */
export function addressProblem(ip: string): string | null {
  const bare = ip.replace(/^\[|\]$/g, '').split('%')[0];
  let a: ipaddr.IPv4 | ipaddr.IPv6;
  if (ipaddr.IPv4.isValidFourPartDecimal(bare)) a = ipaddr.IPv4.parse(bare);
  else if (ipaddr.IPv6.isValid(bare)) a = ipaddr.IPv6.parse(bare);
  else return 'not an IP address';
  if (a.kind() === 'ipv6') {
    const v4 = embeddedV4(a as ipaddr.IPv6);
    if (v4) a = v4;
    else if (!(a as ipaddr.IPv6).match(GLOBAL_UNICAST_V6)) return `${a.range()} (outside 2000::/3)`;
  }
  const range = a.range();
  return range === 'unicast' ? null : range;
}

export const isForbiddenAddress = (ip: string) => addressProblem(ip) !== null;

export const allowPrivateTargets = () => env().WEBHOOK_ALLOW_PRIVATE_TARGETS === '1';

/** What every refusal of a private or loopback target says: the setting that lifts it, and where it is read. */
export const PRIVATE_TARGETS_HINT =
  'a receiver on your own machine or network needs WEBHOOK_ALLOW_PRIVATE_TARGETS=1 in the environment of both the server (npm run dev / npm start) and npm run ops';

/** localhost, 127.0.0.0/8, ::1 (and ::ffff:127.x): the host of a receiver on this very machine. */
export function isLoopbackHost(host: string): boolean {
  const h = host
    .replace(/^\[|\]$/g, '')
    .replace(/\.+$/, '')
    .toLowerCase();
  if (h === 'localhost') return true;
  if (ipaddr.IPv4.isValidFourPartDecimal(h)) return ipaddr.IPv4.parse(h).range() === 'loopback';
  if (ipaddr.IPv6.isValid(h)) {
    const a = ipaddr.IPv6.parse(h);
    return a.range() === 'loopback' || (a.isIPv4MappedAddress() && a.toIPv4Address().range() === 'loopback');
  }
  return false;
}

/** A development server: its BASE_URL is plain http:// on a loopback host (the default without BASE_URL). */
export function isLocalDevelopment(baseUrl = env().BASE_URL): boolean {
  const u = new URL(baseUrl);
  return u.protocol === 'http:' && isLoopbackHost(hostOf(u));
}

/** Said at every start of the server (server/launch.ts): where this server may send webhooks. */
export function webhookTargetsLine(baseUrl: string, allowPrivate: boolean): string {
  const https = allowPrivate
    ? 'https:// URLs, private and loopback addresses included (WEBHOOK_ALLOW_PRIVATE_TARGETS=1)'
    : 'https:// URLs on public addresses only';
  if (!isLocalDevelopment(baseUrl)) return `webhooks go to ${https}`;
  return `development server (BASE_URL ${baseUrl}): test-mode webhooks may also go to plain http://localhost or http://127.0.0.1 receivers, without TLS; live-mode webhooks go to ${https}`;
}

/** A URL of plain http:// to a loopback host: what a development server delivers test-mode events to. */
export function isLocalHttpUrl(raw: string): boolean {
  try {
    const u = new URL(raw);
    return u.protocol === 'http:' && isLoopbackHost(hostOf(u));
  } catch {
    return false;
  }
}

/** Host names that never name a public receiver (RFC 6761 / 6762 and common internal zones). */
const INTERNAL_NAME = /(^|\.)(localhost|local|internal|intranet|lan|home\.arpa|localdomain)$/i;

/** The URL's host as the resolver and the table see it: no brackets, no trailing dot(s), lower case. */
export function hostOf(u: URL): string {
  return u.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.+$/, '')
    .toLowerCase();
}

/**
 * Checks a webhook URL as configured (and again before each attempt): null when acceptable, else the reason.
 * `localHttp`: this server is a development server (isLocalDevelopment), so plain http:// to loopback is accepted.
 */
export function webhookUrlProblem(
  raw: string,
  allowPrivate = allowPrivateTargets(),
  localHttp = isLocalDevelopment(),
): string | null {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return 'not a valid URL';
  }
  const host = hostOf(u);
  if (u.protocol === 'http:' && localHttp && isLoopbackHost(host) && !u.username && !u.password) return null;
  if (u.protocol !== 'https:') {
    return u.protocol === 'http:' && isLoopbackHost(host)
      ? 'webhooks are delivered only to https:// URLs; plain http:// to localhost is accepted only on a development server (BASE_URL http://localhost…), for test-mode events'
      : 'webhooks are delivered only to https:// URLs';
  }
  if (u.username || u.password) return 'credentials in the URL are not allowed';
  if (!host) return 'the URL has no host';
  if (allowPrivate) return null;
  const literal = ipaddr.IPv4.isValidFourPartDecimal(host) || ipaddr.IPv6.isValid(host);
  if (literal) {
    const problem = addressProblem(host);
    return problem ? `the address ${host} is not a public unicast address (${problem}); ${PRIVATE_TARGETS_HINT}` : null;
  }
  if (!host.includes('.') || INTERNAL_NAME.test(host)) return `the host ${host} is not public; ${PRIVATE_TARGETS_HINT}`;
  return null;
}

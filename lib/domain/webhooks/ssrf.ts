/**
 * Where webhooks may go: https:// only, and only to public unicast addresses. One table decides, for an
 * address written in the URL and for every address a name resolves to, and it is applied again to the
 * address the socket actually connects to (lib/domain/webhooks/deliver.ts), so neither DNS nor a spelling of an IP
 * literal can reach loopback, private, link-local, CGNAT, multicast or reserved space.
 *
 * The table is ipaddr.js's classification (IANA's special-purpose registries): an IPv4 address must be
 * `unicast`; an IPv6 one must be `unicast` inside 2000::/3. IPv4-mapped (::ffff:a.b.c.d) and NAT64
 * (64:ff9b::/96, used by DNS64 networks) addresses are judged as the IPv4 address they carry; every other
 * transition form (IPv4-compatible ::a.b.c.d, 6to4, Teredo, SIIT, the local-use NAT64 prefix) is refused.
 * WEBHOOK_ALLOW_PRIVATE_TARGETS=1 lifts the address rule (local demos, tests), never the https rule.
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

/** Host names that never name a public receiver (RFC 6761 / 6762 and common internal zones). */
const INTERNAL_NAME = /(^|\.)(localhost|local|internal|intranet|lan|home\.arpa|localdomain)$/i;

/** The URL's host as the resolver and the table see it: no brackets, no trailing dot(s), lower case. */
export function hostOf(u: URL): string {
  return u.hostname.replace(/^\[|\]$/g, '').replace(/\.+$/, '').toLowerCase();
}

/** Checks a webhook URL as configured (and again before each attempt): null when acceptable, else the reason. */
export function webhookUrlProblem(raw: string, allowPrivate = allowPrivateTargets()): string | null {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return 'not a valid URL';
  }
  if (u.protocol !== 'https:') return 'webhooks are delivered only to https:// URLs';
  if (u.username || u.password) return 'credentials in the URL are not allowed';
  const host = hostOf(u);
  if (!host) return 'the URL has no host';
  if (allowPrivate) return null;
  const literal = ipaddr.IPv4.isValidFourPartDecimal(host) || ipaddr.IPv6.isValid(host);
  if (literal) {
    const problem = addressProblem(host);
    return problem ? `the address ${host} is not a public unicast address (${problem})` : null;
  }
  if (!host.includes('.') || INTERNAL_NAME.test(host)) return `the host ${host} is not public`;
  return null;
}

/**
 * Where webhooks may go: https:// only, and never to loopback, private, link-local, CGNAT, multicast or
 * otherwise reserved addresses, in any spelling (decimal and hex IPv4 forms are normalised by the URL
 * parser; IPv4-mapped and NAT64 IPv6 are checked as the IPv4 they carry). The resolved address is checked
 * again at connect time, so DNS cannot point an allowed name at a forbidden address.
 * WEBHOOK_ALLOW_PRIVATE_TARGETS=1 lifts the address rule (local demos, tests), never the https rule.
 */
import net from 'node:net';
import { env } from '../env';

const V4_BLOCKED: [string, number][] = [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15],
  ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
];

const v4int = (ip: string) => ip.split('.').reduce((a, o) => a * 256 + Number(o), 0);

function blockedV4(ip: string): boolean {
  const x = v4int(ip);
  return V4_BLOCKED.some(([base, bits]) => Math.floor(x / 2 ** (32 - bits)) === Math.floor(v4int(base) / 2 ** (32 - bits)));
}

/** Expands an IPv6 address to 8 groups of 16 bits. */
function v6groups(ip: string): number[] {
  let s = ip.toLowerCase().split('%')[0];
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (tail) {
    const n = v4int(tail[1]);
    s = s.slice(0, -tail[1].length) + `${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, rest] = s.split('::');
  const h = head ? head.split(':') : [];
  const r = rest !== undefined && rest ? rest.split(':') : [];
  const zeros = s.includes('::') ? Array(8 - h.length - r.length).fill('0') : [];
  return [...h, ...zeros, ...r].map((g) => parseInt(g || '0', 16));
}

function blockedV6(ip: string): boolean {
  const g = v6groups(ip);
  const embeddedV4 = () => `${g[6] >> 8}.${g[6] & 255}.${g[7] >> 8}.${g[7] & 255}`;
  if (g.every((x) => x === 0)) return true; // ::
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return true; // ::1
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return blockedV4(embeddedV4()); // ::ffff:a.b.c.d
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return blockedV4(embeddedV4()); // NAT64
  if ((g[0] & 0xfe00) === 0xfc00) return true; // fc00::/7 unique local
  if ((g[0] & 0xffc0) === 0xfe80) return true; // fe80::/10 link-local
  if ((g[0] & 0xff00) === 0xff00) return true; // multicast
  if (g[0] === 0x2001 && g[1] === 0x0db8) return true; // documentation
  return false;
}

export function isForbiddenAddress(ip: string): boolean {
  const kind = net.isIP(ip);
  if (kind === 4) return blockedV4(ip);
  if (kind === 6) return blockedV6(ip);
  return true;
}

export const allowPrivateTargets = () => env().WEBHOOK_ALLOW_PRIVATE_TARGETS === '1';

/** Checks a webhook URL as configured: null when acceptable, else the reason. */
export function webhookUrlProblem(raw: string, allowPrivate = allowPrivateTargets()): string | null {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return 'not a valid URL';
  }
  if (u.protocol !== 'https:') return 'webhooks are delivered only to https:// URLs';
  if (u.username || u.password) return 'credentials in the URL are not allowed';
  const host = u.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate) {
    if (net.isIP(host) && isForbiddenAddress(host)) return `the address ${host} is private, loopback or reserved`;
    if (/^localhost$|\.localhost$|\.local$|\.internal$/i.test(host)) return `the host ${host} is not public`;
  }
  return null;
}

import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { addressProblem, isForbiddenAddress, isLocalDevelopment, webhookUrlProblem } from './ssrf';

describe('webhook targets (SSRF)', () => {
  const refused: [string, string][] = [
    ['plain http', 'http://hooks.example.com/x'],
    ['loopback', 'https://127.0.0.1/x'],
    ['loopback, other /8 address', 'https://127.1.2.3/x'],
    ['loopback, decimal form', 'https://2130706433/x'],
    ['loopback, hex form', 'https://0x7f000001/x'],
    ['loopback, short dotted form', 'https://127.1/x'],
    ['loopback, octal form', 'https://0177.0.0.1/x'],
    ['localhost name', 'https://localhost/x'],
    ['this network', 'https://0.0.0.0/x'],
    ['private 10/8', 'https://10.1.2.3/x'],
    ['private 172.16/12', 'https://172.20.0.1/x'],
    ['private 192.168/16', 'https://192.168.1.1/x'],
    ['CGNAT 100.64/10', 'https://100.100.1.1/x'],
    ['link-local / metadata', 'https://169.254.169.254/latest/meta-data'],
    ['multicast', 'https://224.0.0.1/x'],
    ['broadcast', 'https://255.255.255.255/x'],
    ['IPv6 loopback', 'https://[::1]/x'],
    ['IPv6 unspecified', 'https://[::]/x'],
    ['IPv6 unique local', 'https://[fd00::1]/x'],
    ['IPv6 link-local', 'https://[fe80::1]/x'],
    ['IPv6 multicast', 'https://[ff02::1]/x'],
    ['IPv4-mapped IPv6 loopback', 'https://[::ffff:127.0.0.1]/x'],
    ['IPv4-mapped IPv6 private, hex', 'https://[::ffff:a00:1]/x'],
    ['NAT64 of a private address', 'https://[64:ff9b::10.0.0.1]/x'],
    // The gaps found by probing (issue #19): each was accepted before the address table of ipaddr.js.
    ['localhost with a trailing dot', 'https://LOCALHOST./x'],
    ['IPv4-compatible IPv6 loopback', 'https://[::127.0.0.1]/x'],
    ['SIIT (IPv4-translated) loopback', 'https://[::ffff:0:127.0.0.1]/x'],
    ['local-use NAT64 prefix carrying loopback', 'https://[64:ff9b:1::7f00:1]/x'],
    ['6to4 of loopback', 'https://[2002:7f00:1::]/x'],
    ['deprecated site-local IPv6', 'https://[fec0::1]/x'],
    ['NAT64 of loopback, hex', 'https://[64:ff9b::7f00:1]/x'],
    ['Teredo', 'https://[2001::1]/x'],
    ['IPv6 documentation range', 'https://[2001:db8::1]/x'],
    ['IPv6 discard range', 'https://[100::1]/x'],
    ['IPv6 outside global unicast', 'https://[::2]/x'],
    ['TEST-NET-1', 'https://192.0.2.10/x'],
    ['benchmarking 198.18/15', 'https://198.19.0.1/x'],
    ['IETF protocol assignments 192.0.0/24', 'https://192.0.0.170/x'],
    ['reserved 240/4', 'https://240.1.2.3/x'],
    ['single-label name', 'https://intranet/x'],
    ['.internal name', 'https://metadata.google.internal/x'],
    ['.home.arpa name', 'https://printer.home.arpa/x'],
    ['localhost subdomain with trailing dots', 'https://a.localhost../x'],
    ['credentials in the URL', 'https://user:pw@hooks.example.com/x'],
    ['not a URL', 'hooks.example.com'],
  ];
  for (const [name, url] of refused) {
    it(`refuses ${name}: ${url}`, () => expect(webhookUrlProblem(url, false, false)).not.toBeNull());
  }

  const allowed = [
    'https://hooks.example.com/x',
    'https://hooks.example.com./x',
    'https://8.8.8.8/x',
    'https://[2606:4700::1111]/x',
    'https://172.32.0.1/x',
    'https://100.128.0.1/x',
    // A DNS64 network's synthesized address of a public IPv4 host, and a mapped public address.
    'https://[64:ff9b::808:808]/x',
    'https://[::ffff:8.8.8.8]/x',
  ];
  for (const url of allowed) it(`allows ${url}`, () => expect(webhookUrlProblem(url, false, false)).toBeNull());

  it('WEBHOOK_ALLOW_PRIVATE_TARGETS lifts the address rule, never the https rule', () => {
    expect(webhookUrlProblem('https://127.0.0.1:8443/x', true)).toBeNull();
    expect(webhookUrlProblem('http://127.0.0.1:8443/x', true, false)).not.toBeNull();
  });

  it('every refusal of a private or loopback target names WEBHOOK_ALLOW_PRIVATE_TARGETS and where to set it', () => {
    const where =
      'needs WEBHOOK_ALLOW_PRIVATE_TARGETS=1 in the environment of both the server (npm run dev / npm start) and npm run ops';
    expect(webhookUrlProblem('https://127.0.0.1:8443/x', false, false)).toBe(
      `the address 127.0.0.1 is not a public unicast address (loopback); a receiver on your own machine or network ${where}`,
    );
    expect(webhookUrlProblem('https://192.168.1.5/x', false, false)).toBe(
      `the address 192.168.1.5 is not a public unicast address (private); a receiver on your own machine or network ${where}`,
    );
    expect(webhookUrlProblem('https://localhost:8443/x', false, false)).toBe(
      `the host localhost is not public; a receiver on your own machine or network ${where}`,
    );
  });

  it('a development server (BASE_URL http://localhost…) accepts plain http:// to loopback, and nothing else without TLS', () => {
    expect(isLocalDevelopment('http://localhost:3000')).toBe(true);
    expect(isLocalDevelopment('http://127.0.0.1:3000')).toBe(true);
    expect(isLocalDevelopment('http://[::1]:3000')).toBe(true);
    expect(isLocalDevelopment('https://localhost:3000')).toBe(false);
    expect(isLocalDevelopment('http://verify.example.com')).toBe(false);
    expect(isLocalDevelopment('https://verify.example.com')).toBe(false);
    for (const url of [
      'http://localhost:4000/hook',
      'http://127.0.0.1:4000/hook',
      'http://[::1]:4000/hook',
      'http://127.0.0.2/x',
    ]) {
      expect(webhookUrlProblem(url, false, true)).toBeNull();
    }
    // Not loopback, or credentials: https still required.
    expect(webhookUrlProblem('http://192.168.1.5/hook', false, true)).toBe(
      'webhooks are delivered only to https:// URLs',
    );
    expect(webhookUrlProblem('http://hooks.example.com/x', true, true)).toBe(
      'webhooks are delivered only to https:// URLs',
    );
    expect(webhookUrlProblem('http://u:p@localhost:4000/x', false, true)).not.toBeNull();
    // Production (BASE_URL https://…): unchanged, and the refusal says where plain http:// to localhost is accepted.
    expect(webhookUrlProblem('http://localhost:4000/hook', true, false)).toBe(
      'webhooks are delivered only to https:// URLs; plain http:// to localhost is accepted only on a development server (BASE_URL http://localhost…), for test-mode events',
    );
  });

  it('classifies resolved addresses', () => {
    expect(isForbiddenAddress('93.184.216.34')).toBe(false);
    expect(isForbiddenAddress('10.0.0.1')).toBe(true);
    expect(isForbiddenAddress('::ffff:192.168.0.1')).toBe(true);
    expect(isForbiddenAddress('not an ip')).toBe(true);
    // Resolvers answer in canonical forms; anything else is not an address and is refused.
    expect(isForbiddenAddress('127.1')).toBe(true);
    expect(isForbiddenAddress('0x7f.0.0.1')).toBe(true);
    expect(isForbiddenAddress('[::1]')).toBe(true);
    expect(isForbiddenAddress('fe80::1%eth0')).toBe(true);
    expect(addressProblem('2606:4700::1111')).toBeNull();
    expect(addressProblem('169.254.169.254')).toBe('linkLocal');
  });

  it('property: every IPv4 address in a special-purpose block is refused, in every IPv6 form that carries it', () => {
    const blocked = fc.oneof(
      ...[
        [10, 8],
        [127, 8],
        [169 * 256 + 254, 16],
        [172 * 256 + 16, 12],
        [192 * 256 + 168, 16],
        [100 * 256 + 64, 10],
        [224, 4],
        [0, 8],
      ].map(([prefix, bits]) => {
        const octets = bits <= 8 ? 1 : 2;
        return fc
          .integer({ min: 0, max: 2 ** (32 - bits) - 1 })
          .map((rest) => ((prefix << (32 - octets * 8)) >>> 0) + rest);
      }),
    );
    const dotted = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
    const hex = (n: number) => `${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
    fc.assert(
      fc.property(blocked, (n) => {
        for (const host of [
          dotted(n),
          `[::ffff:${dotted(n)}]`,
          `[::ffff:${hex(n)}]`,
          `[64:ff9b::${hex(n)}]`,
          `[::${dotted(n)}]`,
          `[2002:${hex(n)}::1]`,
        ]) {
          expect(webhookUrlProblem(`https://${host}/x`, false), host).not.toBeNull();
        }
      }),
      { numRuns: 300 },
    );
  });
});

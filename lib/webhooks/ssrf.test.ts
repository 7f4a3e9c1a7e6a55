import { describe, expect, it } from 'vitest';
import { isForbiddenAddress, webhookUrlProblem } from './ssrf';

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
    ['credentials in the URL', 'https://user:pw@hooks.example.com/x'],
    ['not a URL', 'hooks.example.com'],
  ];
  for (const [name, url] of refused) {
    it(`refuses ${name}: ${url}`, () => expect(webhookUrlProblem(url, false)).not.toBeNull());
  }

  const allowed = ['https://hooks.example.com/x', 'https://8.8.8.8/x', 'https://[2606:4700::1111]/x', 'https://172.32.0.1/x', 'https://100.128.0.1/x'];
  for (const url of allowed) it(`allows ${url}`, () => expect(webhookUrlProblem(url, false)).toBeNull());

  it('WEBHOOK_ALLOW_PRIVATE_TARGETS lifts the address rule, never the https rule', () => {
    expect(webhookUrlProblem('https://127.0.0.1:8443/x', true)).toBeNull();
    expect(webhookUrlProblem('http://127.0.0.1:8443/x', true)).not.toBeNull();
  });

  it('classifies resolved addresses', () => {
    expect(isForbiddenAddress('93.184.216.34')).toBe(false);
    expect(isForbiddenAddress('10.0.0.1')).toBe(true);
    expect(isForbiddenAddress('::ffff:192.168.0.1')).toBe(true);
    expect(isForbiddenAddress('not an ip')).toBe(true);
  });
});

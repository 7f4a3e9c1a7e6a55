import { describe, expect, it } from 'vitest';
import { EnvError, parseEnv } from '../../core/env';
import { parseTrustedProxies, resolveClientAddress } from './client-address';
import { crossSiteProblem } from '../../api/same-origin';

describe('the client address (the sign-in throttle counts it)', () => {
  const none = parseTrustedProxies('');
  it('no trusted proxy (the default): the connection’s address, whatever X-Forwarded-For says', () => {
    expect(resolveClientAddress('203.0.113.5', null, none)).toBe('203.0.113.5');
    expect(resolveClientAddress('203.0.113.5', '10.0.0.61', none)).toBe('203.0.113.5');
    expect(resolveClientAddress('::ffff:127.0.0.1', '10.0.0.61, 1.1.1.1', none)).toBe('127.0.0.1');
    expect(resolveClientAddress(undefined, '10.0.0.61', none)).toBeNull();
  });

  it('through trusted proxies: the nearest address they did not append themselves; a forged prefix is ignored', () => {
    const proxies = parseTrustedProxies('127.0.0.1, 10.0.0.0/8, ::1');
    // The client forged "6.6.6.6"; the one proxy appended the address it saw.
    expect(resolveClientAddress('127.0.0.1', '6.6.6.6, 203.0.113.5', proxies)).toBe('203.0.113.5');
    expect(resolveClientAddress('::1', '6.6.6.6, 203.0.113.5, 10.0.0.2', proxies)).toBe('203.0.113.5');
    expect(resolveClientAddress('::ffff:10.1.2.3', ['6.6.6.6', '203.0.113.5'], proxies)).toBe('203.0.113.5');
    // A proxy that sent no header: the proxy itself; garbage to the left of what a proxy appended ends the walk.
    expect(resolveClientAddress('127.0.0.1', null, proxies)).toBe('127.0.0.1');
    expect(resolveClientAddress('127.0.0.1', 'not-an-address, 10.0.0.9', proxies)).toBe('10.0.0.9');
    // The same headers from a connection that is not a proxy: its own address.
    expect(resolveClientAddress('198.51.100.7', '6.6.6.6, 203.0.113.5', proxies)).toBe('198.51.100.7');
  });

  it('TRUSTED_PROXIES takes addresses and CIDR ranges, IPv4 and IPv6', () => {
    expect(parseTrustedProxies('127.0.0.1,10.0.0.0/8, 2001:db8::/32 ,::ffff:192.168.0.0/112').length).toBe(4);
    expect(resolveClientAddress('2001:db8::5', '203.0.113.5', parseTrustedProxies('2001:db8::/32'))).toBe(
      '203.0.113.5',
    );
    expect(resolveClientAddress('192.168.3.4', '203.0.113.5', parseTrustedProxies('::ffff:192.168.0.0/112'))).toBe(
      '203.0.113.5',
    );
  });
});
describe('TRUSTED_PROXIES and the setting it replaces', () => {
  it('addresses and ranges are accepted; anything else, and ADMIN_TRUSTED_PROXIES other than 0, stops the start with a message', () => {
    expect(parseEnv({ TRUSTED_PROXIES: '127.0.0.1, 10.0.0.0/8,::1' }).TRUSTED_PROXIES).toBe(
      '127.0.0.1, 10.0.0.0/8,::1',
    );
    expect(parseEnv({}).TRUSTED_PROXIES).toBe('');
    expect(parseEnv({ ADMIN_TRUSTED_PROXIES: '0' }).TRUSTED_PROXIES).toBe('');
    expect(() => parseEnv({ TRUSTED_PROXIES: 'proxy.internal' })).toThrow(
      /TRUSTED_PROXIES: comma-separated IP addresses or CIDR ranges/,
    );
    expect(() => parseEnv({ TRUSTED_PROXIES: '10.0.0.0/33' })).toThrow(EnvError);
    expect(() => parseEnv({ ADMIN_TRUSTED_PROXIES: '1' })).toThrow(
      /ADMIN_TRUSTED_PROXIES: replaced by TRUSTED_PROXIES/,
    );
  });
});

describe('cross-site form posts (proxy.ts)', () => {
  const base = 'https://verify.example.com';
  const h = (o: Record<string, string>) => new Headers(o);
  it('a state-changing request to the admin area or Auth.js needs BASE_URL’s origin, or Sec-Fetch-Site: same-origin without an Origin', () => {
    expect(crossSiteProblem('POST', '/admin/verifications/x', h({ origin: base }), base)).toBeNull();
    expect(crossSiteProblem('POST', '/admin/sign-in', h({ 'sec-fetch-site': 'same-origin' }), base)).toBeNull();
    for (const headers of [
      {},
      { origin: 'https://evil.example' },
      { origin: 'null' },
      { origin: 'http://verify.example.com' },
      { origin: 'https://verify.example.com:8443' },
      { 'sec-fetch-site': 'same-site' },
      { origin: 'https://evil.example', 'sec-fetch-site': 'same-origin' },
    ] as Record<string, string>[]) {
      expect(crossSiteProblem('POST', '/admin', h(headers), base), JSON.stringify(headers)).toEqual(expect.any(String));
    }
    for (const m of ['PUT', 'PATCH', 'DELETE'])
      expect(crossSiteProblem(m, '/api/auth/signout', h({}), base)).toEqual(expect.any(String));
  });

  it('reads, the API, the capture page and the identity provider’s callback are not its business', () => {
    for (const m of ['GET', 'HEAD', 'OPTIONS'])
      expect(crossSiteProblem(m, '/admin/verifications', h({ origin: 'https://evil.example' }), base)).toBeNull();
    for (const p of [
      '/v1/verifications',
      '/api/capture/abc/media',
      '/verify/abc',
      '/api/auth/callback/oidc',
      '/administrator',
    ])
      expect(crossSiteProblem('POST', p, h({}), base), p).toBeNull();
  });

  it('a loopback BASE_URL takes the other loopback names of the same scheme and port', () => {
    const local = 'http://localhost:3000';
    for (const o of ['http://localhost:3000', 'http://127.0.0.1:3000', 'http://[::1]:3000'])
      expect(crossSiteProblem('POST', '/admin', h({ origin: o }), local), o).toBeNull();
    for (const o of ['http://127.0.0.1:3001', 'https://localhost:3000', 'http://localhost.evil.example:3000'])
      expect(crossSiteProblem('POST', '/admin', h({ origin: o }), local), o).toEqual(expect.any(String));
  });
});

import { describe, expect, it } from 'vitest';
import { clientAddress, safeNext } from './throttle';

describe('the client address for the sign-in throttle', () => {
  it('reached directly: the last X-Forwarded-For entry (what Next.js put there when the client sent none)', () => {
    expect(clientAddress('203.0.113.5', 0)).toBe('203.0.113.5');
    expect(clientAddress('1.1.1.1, 203.0.113.5', 0)).toBe('203.0.113.5');
    expect(clientAddress(null, 0)).toBeNull();
    expect(clientAddress(' , ', 0)).toBeNull();
  });

  it('behind n proxies that append: the n-th entry from the right; a forged prefix is ignored', () => {
    // The client forged "6.6.6.6"; the one proxy appended the address it saw.
    expect(clientAddress('6.6.6.6, 203.0.113.5', 1)).toBe('203.0.113.5');
    expect(clientAddress('6.6.6.6, 203.0.113.5, 10.0.0.2', 2)).toBe('203.0.113.5');
    expect(clientAddress('203.0.113.5', 3)).toBe('203.0.113.5');
  });
});

describe('where sign-in returns to', () => {
  it('an admin path, kept with its query', () => {
    expect(safeNext('/admin/verifications?status=review')).toBe('/admin/verifications?status=review');
    expect(safeNext('/admin')).toBe('/admin');
  });

  it('never another site, another part of the service, or sign-in itself', () => {
    for (const bad of ['https://evil.example/admin', '//evil.example/admin', '/\\evil.example', '/admin\\@evil', '/adminx', '/v1/verifications', '/admin/sign-in?next=/admin', '/admin/sign-in/code', '/admin/x\r\nLocation: //evil', undefined, 42]) {
      expect(safeNext(bad), String(bad)).toBe('/admin');
    }
  });
});

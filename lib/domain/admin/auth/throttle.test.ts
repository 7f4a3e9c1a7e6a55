import { describe, expect, it } from 'vitest';
import { safeNext } from './throttle';

describe('where sign-in returns to', () => {
  it('an admin path, kept with its query', () => {
    expect(safeNext('/admin/verifications?status=review')).toBe('/admin/verifications?status=review');
    expect(safeNext('/admin')).toBe('/admin');
  });

  it('never another site, another part of the service, or sign-in itself', () => {
    for (const bad of [
      'https://evil.example/admin',
      '//evil.example/admin',
      '/\\evil.example',
      '/admin\\@evil',
      '/adminx',
      '/v1/verifications',
      '/admin/sign-in?next=/admin',
      '/admin/sign-in/code',
      '/admin/x\r\nLocation: //evil',
      undefined,
      42,
    ]) {
      expect(safeNext(bad), String(bad)).toBe('/admin');
    }
  });
});

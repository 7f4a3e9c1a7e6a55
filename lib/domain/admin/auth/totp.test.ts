import { describe, expect, it } from 'vitest';
import { base32Decode, base32Encode, hotp, matchTotp, otpauthUri, totpAt } from './totp';

// RFC 6238 appendix B, SHA-1: the ASCII secret "12345678901234567890", 8-digit codes.
const RFC_SECRET = Buffer.from('12345678901234567890');
const VECTORS: [number, string][] = [
  [59, '94287082'],
  [1111111109, '07081804'],
  [1111111111, '14050471'],
  [1234567890, '89005924'],
  [2000000000, '69279037'],
  [20000000000, '65353130'],
];

describe('TOTP', () => {
  it('gives the RFC 6238 test vectors', () => {
    for (const [t, code] of VECTORS) expect(hotp(RFC_SECRET, Math.floor(t / 30), 8)).toBe(code);
  });

  it('base32 round-trips and matches the RFC 4648 example', () => {
    expect(base32Encode(Buffer.from('foobar'))).toBe('MZXW6YTBOI');
    expect(base32Decode('MZXW6YTBOI').toString()).toBe('foobar');
    expect(base32Decode('mzxw 6ytb oi').toString()).toBe('foobar');
  });

  it('accepts the current and neighbouring steps once, never a used or older step', () => {
    const secret = base32Encode(RFC_SECRET);
    const now = new Date(1111111111 * 1000);
    const step = Math.floor(1111111111 / 30);
    const code = totpAt(secret, now);
    expect(matchTotp(secret, code, now, null)).toBe(step);
    expect(matchTotp(secret, code, now, step)).toBeNull();
    expect(matchTotp(secret, code, now, step + 1)).toBeNull();
    expect(matchTotp(secret, code, new Date(now.getTime() + 30_000), null)).toBe(step);
    expect(matchTotp(secret, code, new Date(now.getTime() + 90_000), null)).toBeNull();
    expect(matchTotp(secret, '12345', now, null)).toBeNull();
    expect(matchTotp(secret, 'abcdef', now, null)).toBeNull();
  });

  it('writes an otpauth URI authenticator apps read', () => {
    const uri = otpauthUri('JBSWY3DPEHPK3PXP', 'ann@example.com', 'Open Verify');
    expect(uri).toBe(
      'otpauth://totp/Open%20Verify%3Aann%40example.com?secret=JBSWY3DPEHPK3PXP&issuer=Open+Verify&algorithm=SHA1&digits=6&period=30',
    );
  });
});

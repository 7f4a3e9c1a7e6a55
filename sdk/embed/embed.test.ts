/**
 * @open-verify/embed without a browser: which messages it accepts (only the page's origin, only the window it
 * opened, only known events, only their known fields), when it starts in a new tab, and its size. The SDK in a
 * real browser, framed by another origin: e2e/embed.spec.ts.
 */
import { describe, expect, it } from 'vitest';
import { acceptMessage, frameUnsupported } from './src/index';
// @ts-expect-error: a plain ES module without declarations
import { bundles, gzipSize } from './build.mjs';

const ORIGIN = 'https://verify.example';
const frameWindow = { name: 'the frame' };
const id = '01a22246-a5b6-702e-82fd-6fbe0d633099';
const msg = (data: unknown, over: Partial<{ origin: string; source: unknown }> = {}) => ({
  origin: ORIGIN,
  source: frameWindow,
  data,
  ...over,
});
const accept = (m: ReturnType<typeof msg>) => acceptMessage(m, { origin: ORIGIN, source: frameWindow });

describe('acceptMessage', () => {
  it('accepts each event of the page, keeping its known fields only', () => {
    expect(accept(msg({ source: 'open-verify', type: 'loaded', verification_id: id, status: 'created' }))).toEqual({
      type: 'loaded',
      verification_id: id,
      status: 'created',
    });
    expect(accept(msg({ source: 'open-verify', type: 'step', verification_id: id, step: 'selfie' }))).toEqual({
      type: 'step',
      verification_id: id,
      step: 'selfie',
    });
    expect(accept(msg({ source: 'open-verify', type: 'step', verification_id: id, step: 'wallet' }))).toEqual({
      type: 'step',
      verification_id: id,
      step: 'wallet',
    });
    expect(accept(msg({ source: 'open-verify', type: 'submitted', verification_id: id }))).toEqual({
      type: 'submitted',
      verification_id: id,
    });
    expect(
      accept(
        msg({
          source: 'open-verify',
          type: 'completed',
          verification_id: id,
          status: 'approved',
          name: 'Jane Doe',
          age: 31,
        }),
      ),
    ).toEqual({ type: 'completed', verification_id: id, status: 'approved' });
    expect(
      accept(msg({ source: 'open-verify', type: 'error', verification_id: id, code: 'camera_unavailable' })),
    ).toEqual({ type: 'error', verification_id: id, code: 'camera_unavailable' });
  });

  it('refuses a message from another origin', () => {
    expect(
      accept(
        msg(
          { source: 'open-verify', type: 'completed', verification_id: id, status: 'approved' },
          { origin: 'https://evil.example' },
        ),
      ),
    ).toBeNull();
  });

  it('refuses a message from another window of the same origin', () => {
    expect(
      accept(
        msg(
          { source: 'open-verify', type: 'completed', verification_id: id, status: 'approved' },
          { source: { name: 'another tab' } },
        ),
      ),
    ).toBeNull();
  });

  it('refuses everything while it has no window (a blocked tab)', () => {
    expect(
      acceptMessage(msg({ source: 'open-verify', type: 'submitted', verification_id: id }, { source: null }), {
        origin: ORIGIN,
        source: null,
      }),
    ).toBeNull();
  });

  it('refuses an unknown event, a message without the marker, a bad id, step or status', () => {
    expect(
      accept(msg({ source: 'open-verify', type: 'photo', verification_id: id, image: 'data:image/jpeg;base64,…' })),
    ).toBeNull();
    expect(accept(msg({ type: 'submitted', verification_id: id }))).toBeNull();
    expect(accept(msg('submitted'))).toBeNull();
    expect(accept(msg(null))).toBeNull();
    expect(accept(msg({ source: 'open-verify', type: 'submitted', verification_id: '<img src=x>' }))).toBeNull();
    expect(accept(msg({ source: 'open-verify', type: 'step', verification_id: id, step: 'payment' }))).toBeNull();
    expect(
      accept(msg({ source: 'open-verify', type: 'completed', verification_id: id, status: 'created' })),
    ).toBeNull();
    expect(
      accept(msg({ source: 'open-verify', type: 'error', verification_id: id, code: 'Your name is Jane Doe' })),
    ).toBeNull();
  });
});

describe('frameUnsupported: the new-tab fallback from the start', () => {
  const camera = { getUserMedia: () => undefined };
  it('a desktop or phone browser with a camera API uses the frame', () => {
    expect(
      frameUnsupported({
        userAgent:
          'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
        mediaDevices: camera,
      }),
    ).toBe(false);
    expect(
      frameUnsupported({
        userAgent:
          'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
        mediaDevices: camera,
      }),
    ).toBe(false);
  });
  it('an in-app browser (Instagram, Facebook, an Android WebView) opens a tab', () => {
    expect(
      frameUnsupported({
        userAgent:
          'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 339.0.3.12.108',
        mediaDevices: camera,
      }),
    ).toBe(true);
    expect(
      frameUnsupported({
        userAgent:
          'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Mobile Safari/537.36 [FB_IAB/FB4A;FBAV/489.0.0.50.82;]',
        mediaDevices: camera,
      }),
    ).toBe(true);
    expect(
      frameUnsupported({
        userAgent:
          'Mozilla/5.0 (Linux; Android 14; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/131.0 Mobile Safari/537.36',
        mediaDevices: camera,
      }),
    ).toBe(true);
  });
  it('a browser without a camera API opens a tab', () => {
    expect(frameUnsupported({ userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0.0.0 Safari/537.36' })).toBe(
      true,
    );
  });
});

describe('size', () => {
  it('the ESM bundle and the single script are each under 5 KB gzipped', async () => {
    const b = await bundles({ write: false });
    const sizes = { esm: gzipSize(b.esm), script: gzipSize(b.iife), react: gzipSize(b.react) };
    console.log(`@open-verify/embed gzipped: ${JSON.stringify(sizes)} bytes`);
    expect(sizes.esm).toBeLessThan(5 * 1024);
    expect(sizes.script).toBeLessThan(5 * 1024);
    expect(b.iife).toContain('OpenVerifyEmbed');
    // No runtime dependency: nothing is imported by the core bundles.
    expect(b.esm).not.toMatch(/\bimport\s*[{*\w]/);
  });
});

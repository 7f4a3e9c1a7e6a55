/**
 * The SSRF guard at send time, against a real HTTPS receiver on loopback: every spelling that reaches it
 * (proved by the same URL going through when private targets are allowed) is refused when they are not,
 * and the receiver sees nothing. A URL stored before a rule existed is checked again at every attempt.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selfSignedCert, startReceiver } from '@/lib/testing/https-receiver';
import { guardPeer, sendOnce } from './deliver';

describe('SSRF guard at connect time', () => {
  const tls = selfSignedCert();
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    rx = await startReceiver(tls);
  });
  afterAll(() => rx.close());

  const spellings = (port: number) => [
    `https://127.0.0.1:${port}/x`,
    `https://127.1:${port}/x`,
    `https://2130706433:${port}/x`,
    `https://0x7f000001:${port}/x`,
    `https://localhost:${port}/x`,
  ];

  it('each spelling of loopback reaches the receiver when private targets are allowed', async () => {
    for (const url of spellings(rx.port)) {
      const r = await sendOnce(url, '{}', {}, { allowPrivate: true, ca: tls.cert, timeoutMs: 5000 });
      // localhost names are not in the certificate's IP SAN but are in its DNS SAN: all verify.
      expect([url, r.statusCode, r.error]).toEqual([url, 200, undefined]);
    }
  });

  it('and every one of them is refused, before connecting, when they are not', async () => {
    const before = rx.received.length;
    for (const url of spellings(rx.port)) {
      const r = await sendOnce(url, '{}', {}, { allowPrivate: false, ca: tls.cert, timeoutMs: 5000 });
      expect([url, r.statusCode, r.error]).toEqual([url, undefined, expect.stringMatching(/^refused/)]);
    }
    // A name that resolves to loopback (a public-looking name, a hostile DNS answer).
    const resolver = (_h: string, cb: (e: null, a: { address: string; family: number }[]) => void) => cb(null, [{ address: '127.0.0.1', family: 4 }]);
    const viaDns = await sendOnce(`https://hooks.example.com:${rx.port}/x`, '{}', {}, { allowPrivate: false, ca: tls.cert, resolver });
    expect(viaDns.error).toMatch(/^refused: hooks\.example\.com resolves to 127\.0\.0\.1/);
    expect(rx.received.length).toBe(before);
  });

  it('the peer the socket reached is checked on connect (the last line, whatever resolved it)', async () => {
    const server = net.createServer((s) => s.end());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as net.AddressInfo;
    const outcome = (allowPrivate: boolean) =>
      new Promise<string>((resolve) => {
        const socket = net.connect(port, '127.0.0.1');
        guardPeer(socket, allowPrivate, (e) => {
          socket.destroy();
          resolve(e.message);
        });
        socket.once('connect', () => setImmediate(() => resolve('connected')));
        socket.on('error', () => {});
      });
    expect(await outcome(false)).toBe('refused: connected to 127.0.0.1 (loopback)');
    expect(await outcome(true)).toBe('connected');
    server.close();
  });
});

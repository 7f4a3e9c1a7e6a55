/**
 * The SSRF guard at send time, against a real HTTPS receiver on loopback: every spelling that reaches it
 * (proved by the same URL going through when private targets are allowed) is refused when they are not,
 * and the receiver sees nothing. A URL stored before a rule existed is checked again at every attempt.
 */
import type dns from 'node:dns';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { selfSignedCert, startReceiver } from '@/test/helpers/https-receiver';
import { guardPeer, sendOnce } from './deliver';

describe('SSRF guard at connect time', () => {
  const tls = selfSignedCert();
  let rx: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    rx = await startReceiver(tls);
  });
  afterAll(() => rx.close());

  const spellings = (port: number) =>
    ['127.0.0.1', '127.1', '2130706433', '0x7f000001', 'localhost'].map((host) => `https://${host}:${port}${rx.path}`);

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
    const resolver = (_h: string, cb: (e: null, a: { address: string; family: number }[]) => void) =>
      cb(null, [{ address: '127.0.0.1', family: 4 }]);
    const viaDns = await sendOnce(
      `https://hooks.example.com:${rx.port}${rx.path}`,
      '{}',
      {},
      { allowPrivate: false, ca: tls.cert, resolver },
    );
    expect(viaDns.error).toMatch(/^refused: hooks\.example\.com resolves to 127\.0\.0\.1/);
    expect(rx.received.length).toBe(before);
  });

  type Answer = { address: string; family: number };
  /** A resolver that answers `answers[n]` to its n-th query (the last one for any query after), counting them; asynchronous, as DNS is. */
  const changing = (...answers: Answer[][]) => {
    const r = {
      calls: 0,
      resolve: (_h: string, cb: (e: null, a: dns.LookupAddress[]) => void) => {
        const answer = answers[Math.min(r.calls++, answers.length - 1)];
        setImmediate(() => cb(null, answer));
      },
    };
    return r;
  };
  const v4 = (address: string) => ({ address, family: 4 });

  it('names that resolve to private addresses at delivery are refused before connecting, whatever the form of the answer', async () => {
    const before = rx.received.length;
    const answers: [string, Answer[]][] = [
      ['loopback', [v4('127.0.0.1')]],
      ['another loopback address', [v4('127.53.0.1')]],
      ['IPv6 loopback', [{ address: '::1', family: 6 }]],
      ['IPv4-mapped loopback', [{ address: '::ffff:127.0.0.1', family: 6 }]],
      ['a private address', [v4('10.0.0.5')]],
      ['the cloud metadata address', [v4('169.254.169.254')]],
      ['a public address first, loopback second', [v4('93.184.216.34'), v4('127.0.0.1')]],
    ];
    for (const [name, list] of answers) {
      const r = changing(list);
      const res = await sendOnce(
        `https://hooks.example.com:${rx.port}${rx.path}`,
        '{}',
        {},
        { allowPrivate: false, ca: tls.cert, resolver: r.resolve, timeoutMs: 5000 },
      );
      expect([name, res.statusCode, res.error]).toEqual([
        name,
        undefined,
        expect.stringMatching(/^refused: hooks\.example\.com resolves to /),
      ]);
    }
    expect(rx.received.length).toBe(before);
  });

  it('a name whose answer changes between the check and the connection: it is resolved once, and the connection goes to the address checked', async () => {
    // Observes where each socket is about to connect (its 'lookup' event, emitted before the TCP connect) and
    // stops it there, so that no packet goes to a public address from a test.
    const connectingTo: string[] = [];
    const emit = net.Socket.prototype.emit;
    const spy = vi.spyOn(net.Socket.prototype, 'emit').mockImplementation(function (
      this: net.Socket,
      event: string | symbol,
      ...args: unknown[]
    ) {
      if (event === 'lookup' && !args[0]) {
        connectingTo.push(String(args[1]));
        if (!String(args[1]).startsWith('127.')) this.destroy(new Error('stopped by the test before connecting'));
      }
      return emit.apply(this, [event, ...args] as Parameters<typeof emit>);
    } as typeof emit);
    const before = rx.received.length;
    try {
      // DNS rebinding: public when checked, loopback when asked again.
      const rebinding = changing([v4('93.184.216.34')], [v4('127.0.0.1')]);
      const r = await sendOnce(
        `https://hooks.example.com:${rx.port}${rx.path}`,
        '{}',
        {},
        { allowPrivate: false, ca: tls.cert, resolver: rebinding.resolve, timeoutMs: 5000 },
      );
      expect(rebinding.calls).toBe(1);
      expect(connectingTo).toEqual(['93.184.216.34']);
      expect(r.error).toBe('stopped by the test before connecting');
      // With private targets allowed (no table at all), the first answer is still the one connected to: of two
      // loopback addresses the receiver listens on the first only (the second would be refused by the system).
      connectingTo.length = 0;
      const moving = changing([v4('127.0.0.1')], [v4('127.0.0.2')]);
      const ok = await sendOnce(
        `https://localhost:${rx.port}${rx.path}`,
        '{}',
        {},
        { allowPrivate: true, ca: tls.cert, resolver: moving.resolve, timeoutMs: 5000 },
      );
      expect([moving.calls, connectingTo, ok.statusCode]).toEqual([1, ['127.0.0.1'], 200]);
    } finally {
      spy.mockRestore();
    }
    expect(rx.received.length).toBe(before + 1);
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
    expect(await outcome(false)).toBe(
      'refused: connected to 127.0.0.1 (loopback; a receiver on your own machine or network needs WEBHOOK_ALLOW_PRIVATE_TARGETS=1 in the environment of both the server (npm run dev / npm start) and npm run ops)',
    );
    expect(await outcome(true)).toBe('connected');
    server.close();
  });
});

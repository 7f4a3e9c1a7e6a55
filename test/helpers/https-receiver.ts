/** A real local HTTPS webhook receiver with a self-signed certificate made by openssl for 127.0.0.1. */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type net from 'node:net';

export type Received = { headers: Record<string, string | string[] | undefined>; body: string; at: number };
export type Reply = { status: number; delayMs?: number; headers?: Record<string, string>; body?: string };

export function selfSignedCert(): { key: string; cert: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ov-cert-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
      '-keyout',
      path.join(dir, 'key.pem'),
      '-out',
      path.join(dir, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
  const out = {
    key: fs.readFileSync(path.join(dir, 'key.pem'), 'utf8'),
    cert: fs.readFileSync(path.join(dir, 'cert.pem'), 'utf8'),
  };
  fs.rmSync(dir, { recursive: true, force: true });
  return out;
}

/**
 * Answers each request with the next scripted reply (the last one repeats), or what `replies(n)` says for the n-th;
 * `script()` starts a new script (counted from the next request).
 */
export async function startReceiver(
  tls: { key: string; cert: string },
  replies: Reply[] | ((n: number, r: Received) => Reply) = [{ status: 200 }],
) {
  const received: Received[] = [];
  // A path of its own: the database is shared by the test files, and an event of another file whose receiver has
  // closed may be swept to the port this one now has. Such a request is answered 410 and neither recorded nor
  // given a scripted reply.
  const own = `/hooks/${randomBytes(6).toString('hex')}`;
  let script = replies;
  let scriptStart = 0;
  const server = https.createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      if (req.url !== own) {
        res.writeHead(410, { 'content-type': 'text/plain' });
        res.end('not this receiver');
        return;
      }
      const got = { headers: req.headers, body, at: Date.now() };
      received.push(got);
      const n = received.length - scriptStart;
      const r = typeof script === 'function' ? script(n, got) : script[Math.min(n - 1, script.length - 1)];
      setTimeout(() => {
        res.writeHead(r.status, { 'content-type': 'text/plain', ...r.headers });
        res.end(r.body ?? `reply ${r.status}`);
      }, r.delayMs ?? 0);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}${own}`,
    port,
    /** The path it answers on (any other is 410). */
    path: own,
    received,
    script: (r: Reply[] | ((n: number, got: Received) => Reply)) => {
      script = r;
      scriptStart = received.length;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/**
 * What someone holding only a workspace's public key can do to a production server (issue 40, items 1 and 2;
 * SECURITY.md "Failed signatures and uploads"), over raw sockets so that bodies can be held and trickled:
 *  - 70 concurrent wrong signatures, their bodies held and then released together: exactly 10 answered 401 and
 *    60 answered 429 (the count is one statement in the database), and the owner's signed GET and POST from
 *    another address are then served with the workspace's full limit left;
 *  - 4 keys × 8 unsigned 10 MB uploads trickling a byte every 5 s hold only their own keys' places: a signed
 *    upload from another workspace is accepted meanwhile; the slow ones are cut off with 408 once they fall
 *    behind the minimum pace, and each counts as a failed signature of its key and address.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signJsonRequest } from '@/lib/domain/auth/sign';
import { BODY_PACE } from '@/lib/api/body';
import { MAX_FAILURES } from '@/lib/api/signature-failures';
import { UPLOAD_BOUNDS } from '@/lib/api/uploads-in-progress';
import { apiClient } from '@/test/helpers/api-client';
import * as I from '@/test/helpers/images';
import { makeWorkspace, raw, startService, type Service } from './harness';

type Held = { socket: net.Socket; answer: Promise<{ status: number; text: string; closedAt: number }> };

/** A request whose head (and `first` bytes of body) are sent now; the answer is read whenever it comes, and the close. */
function holdRequest(port: number, head: string, first: string | Buffer = ''): Held {
  const socket = net.connect(port, '127.0.0.1');
  socket.write(head);
  if (first.length) socket.write(first);
  const answer = new Promise<{ status: number; text: string; closedAt: number }>((resolve) => {
    let data = Buffer.alloc(0);
    socket.on('data', (d) => (data = Buffer.concat([data, d])));
    socket.on('error', () => {});
    socket.on('close', () => {
      const text = data.toString('utf8');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text, closedAt: Date.now() });
    });
  });
  return { socket, answer };
}

const statusOf = (text: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);

describe('the public key alone, against the production build', () => {
  let svc: Service;
  let base: string;
  beforeAll(async () => {
    // Through a "proxy" on loopback, so that X-Forwarded-For names each request's client address.
    svc = await startService({ TRUSTED_PROXIES: '127.0.0.1' });
    base = `http://127.0.0.1:${svc.port}`;
  }, 180_000);
  afterAll(() => svc?.cleanup());

  it('70 concurrent wrong signatures, bodies held 2 s then released: 10 × 401 and 60 × 429; the owner then has the full limit', async () => {
    const ws = makeWorkspace(svc, [], ['--rate-limit-per-minute', '60']);
    const body = JSON.stringify({ external_id: 'x'.repeat(200) });
    const head =
      `POST /v1/verifications HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n` +
      `x-api-key: ${ws.apiKey}\r\nx-hmac-signature: ${'e'.repeat(64)}\r\nx-forwarded-for: 10.40.0.1\r\nconnection: close\r\n\r\n`;
    const held = Array.from({ length: MAX_FAILURES + 60 }, () => holdRequest(svc.port, head, body.slice(0, 10)));
    await new Promise((r) => setTimeout(r, 2000));
    // The rest of each body at once (the socket stays open: connection: close, the server closes it after answering).
    for (const h of held) h.socket.write(body.slice(10));
    const answers = await Promise.all(held.map((h) => h.answer));
    expect(answers.map((a) => a.status).sort()).toEqual([...Array(MAX_FAILURES).fill(401), ...Array(60).fill(429)]);
    expect(answers.filter((a) => a.status === 429).every((a) => a.text.includes('"scope":"failed_signatures"'))).toBe(
      true,
    );

    // The owner, from another address: its signed GET and POST are served, with all of the limit left.
    const get = await raw(base, 'GET', '/v1/consent', {
      'x-api-key': ws.apiKey,
      'x-hmac-signature': signJsonRequest(ws.test, 'GET', '/v1/consent'),
      'x-forwarded-for': '10.40.0.2',
    });
    expect([get.status, get.headers['x-ratelimit-remaining']]).toEqual([200, '59']);
    const created = await raw(
      base,
      'POST',
      '/v1/verifications',
      {
        'content-type': 'application/json',
        'x-api-key': ws.apiKey,
        'x-hmac-signature': signJsonRequest(ws.test, 'POST', '/v1/verifications', '{}'),
        'x-forwarded-for': '10.40.0.2',
      },
      '{}',
    );
    expect([created.status, created.headers['x-ratelimit-remaining']]).toEqual([201, '58']);
  }, 60_000);

  it(`4 keys × ${UPLOAD_BOUNDS.perApiKey} slow unsigned 10 MB uploads: a signed upload from another workspace is accepted; the slow ones are cut off and counted`, async () => {
    const keys = Array.from({ length: 4 }, () => makeWorkspace(svc));
    const part =
      '--XyZ\r\nContent-Disposition: form-data; name="type"\r\n\r\nselfie\r\n--XyZ\r\nContent-Disposition: form-data; name="file"; filename="a.jpg"\r\nContent-Type: image/jpeg\r\n\r\n';
    const started = Date.now();
    const slow = keys.flatMap((k) =>
      Array.from({ length: UPLOAD_BOUNDS.perApiKey }, () =>
        holdRequest(
          svc.port,
          `POST /v1/verifications/ver_0123456789abcdefghjkmnpqrs/media HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: multipart/form-data; boundary=XyZ\r\n` +
            `content-length: ${10 * 1024 * 1024}\r\nx-api-key: ${k.apiKey}\r\nx-hmac-signature: ${'f'.repeat(64)}\r\nx-forwarded-for: 10.41.0.1\r\n\r\n`,
          part,
        ),
      ),
    );
    // One byte every 5 s, as the probe sent them.
    const drip = setInterval(() => {
      for (const h of slow) if (!h.socket.destroyed) h.socket.write('A');
    }, 5000);
    try {
      await new Promise((r) => setTimeout(r, 1500));
      // Meanwhile a correctly signed upload from another workspace: accepted (201).
      const other = makeWorkspace(svc);
      const client = apiClient(base, other.apiKey, other.test, (b, method, p, headers, body) =>
        raw(b, method, p, { ...headers, 'x-forwarded-for': '10.41.0.2' }, body),
      );
      // prepare() throws unless its upload is 201.
      const id = await client.prepare({ selfie: await I.cameraFrame() });
      expect(typeof id).toBe('string');
      // The slow ones: each cut off with 408 once it falls behind the pace (the grace, then a second or so).
      const answers = await Promise.all(slow.map((h) => h.answer));
      expect(answers.map((a) => a.status)).toEqual(Array(slow.length).fill(408));
      expect(Math.max(...answers.map((a) => a.closedAt - started))).toBeLessThan(BODY_PACE.graceMs + 8000);
    } finally {
      clearInterval(drip);
    }
    // Each cut-off upload counted as a failed signature of its key and address (8 of the 10): the third wrong
    // signature from there is the 11th.
    const wrong = () =>
      raw(base, 'GET', '/v1/consent', {
        'x-api-key': keys[0].apiKey,
        'x-hmac-signature': 'e'.repeat(64),
        'x-forwarded-for': '10.41.0.1',
      });
    const after = [await wrong(), await wrong(), await wrong()];
    expect(after.map((r) => r.status)).toEqual([401, 401, 429]);
  }, 90_000);

  it('a GET with a body, chunked or with a length, is 400 (docs/api.md: a GET carries no body)', async () => {
    const ws = makeWorkspace(svc);
    const sig = signJsonRequest(ws.test, 'GET', '/v1/consent');
    for (const framing of ['transfer-encoding: chunked\r\n', 'content-length: 2\r\n']) {
      const body = framing.startsWith('transfer') ? '2\r\n{}\r\n0\r\n\r\n' : '{}';
      const h = holdRequest(
        svc.port,
        `GET /v1/consent HTTP/1.1\r\nhost: 127.0.0.1\r\nx-api-key: ${ws.apiKey}\r\nx-hmac-signature: ${sig}\r\n${framing}connection: close\r\n\r\n${body}`,
      );
      const a = await h.answer;
      expect(
        [
          statusOf(a.text),
          JSON.parse(
            a.text
              .slice(a.text.indexOf('\r\n\r\n') + 4)
              .replace(/^[0-9a-f]+\r\n/, '')
              .replace(/\r\n0\r\n\r\n$/, ''),
          ).error.code,
        ],
        framing,
      ).toEqual([400, 'BAD_REQUEST']);
    }
  });
});

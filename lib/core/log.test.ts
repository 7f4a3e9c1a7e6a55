/** The logger: one JSON line per event, the request id on every line, secrets and personal data never written. */
import { Writable } from 'node:stream';
import { afterEach, expect, test } from 'vitest';
import { resetEnvCache } from './env';
import { log, resetLogger, withLogContext } from './log';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const raw: string[] = [];
  resetLogger(
    new Writable({
      write(chunk, _enc, cb) {
        raw.push(String(chunk));
        lines.push(JSON.parse(String(chunk)));
        cb();
      },
    }),
  );
  return { lines, raw };
}

afterEach(() => {
  process.env.LOG_LEVEL = 'silent';
  resetEnvCache();
  resetLogger();
});

test('secrets, tokens, faces and personal data are redacted at any depth and inside text', () => {
  process.env.LOG_LEVEL = 'info';
  resetEnvCache();
  const { lines, raw } = capture();
  const secret = 'sk_live_' + 'A'.repeat(56);
  const token = 'x'.repeat(43);
  log.warn(`could not reach https://example.test/verify/${token} with ${secret}`, {
    workspace: {
      id: 'ws_1',
      secret_key: secret,
      nested: { deeper: { password: 'hunter22hunter22', capture_token: token } },
    },
    result: {
      person: { surname: 'ERIKSSON', given_names: 'ANNA', date_of_birth: '1974-08-12' },
      document: { number_masked: '•••••02C3' },
    },
    face: { embedding: [0.1, 0.2], age: 31 },
    headers: { 'x-hmac-signature': 'ab'.repeat(32), authorization: 'Bearer abc.def' },
    err: new Error(`boom at /api/capture/${token}/media`),
  });
  const all = raw.join('');
  for (const s of [
    secret,
    token,
    'hunter22hunter22',
    'ERIKSSON',
    'ANNA',
    '1974-08-12',
    '02C3',
    'ab'.repeat(32),
    'abc.def',
    '0.1,0.2',
  ])
    expect(all).not.toContain(s);
  const line = lines[0] as { msg: string; err: { message: string } };
  expect(line).toMatchObject({
    level: 'warn',
    workspace: { id: 'ws_1', secret_key: '[redacted]' },
    face: { embedding: '[redacted]', age: 31 },
    result: { person: '[redacted]', document: { number_masked: '[redacted]' } },
  });
  expect(line.msg).toContain('/verify/[redacted]');
  expect(line.err.message).toContain('/api/capture/[redacted]/media');
});

test("every line written while a request is served carries its request id; the level is the environment's", async () => {
  process.env.LOG_LEVEL = 'warn';
  resetEnvCache();
  const { lines } = capture();
  await withLogContext({ requestId: 'req_abc' }, async () => {
    await new Promise((r) => setTimeout(r, 5));
    log.warn('inside');
    log.info('below the level');
  });
  log.error('outside');
  expect(lines.map((l) => [l.msg, l.request_id])).toEqual([
    ['inside', 'req_abc'],
    ['outside', undefined],
  ]);
});

test('a failed query logs its SQL, never the values it bound; photos, metadata and sealed data are redacted by name', () => {
  process.env.LOG_LEVEL = 'info';
  resetEnvCache();
  const { raw } = capture();
  const token = 'Zq3' + 'x'.repeat(40);
  const err = new Error(
    `Failed query: insert into "verifications" ("capture_token", "external_id") values ($1, $2)\nparams: ${token},ERIKSSON`,
  );
  log.error('unhandled error', {
    err: new Error('outer', { cause: err }),
    external_metadata: { name: 'ANNA' },
    photo_base64: '/9j/4AAQ',
    result_sealed: 'v1.abc.def',
  });
  const all = raw.join('');
  for (const s of [token, 'ERIKSSON', 'ANNA', '/9j/4AAQ', 'v1.abc.def']) expect(all).not.toContain(s);
  expect(all).toContain('Failed query: insert into \\"verifications\\"');
  expect(all).toContain('params: [redacted]');
});

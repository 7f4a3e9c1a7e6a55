import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  canonicalJson,
  canonicalMultipart,
  markRequestTargetTrusted,
  REQUEST_TARGET_HEADER,
  requestTarget,
  rfc3986,
  sortedFormFields,
  sortedFileHashes,
} from './canonical';
import { signMultipartRequest } from './sign';
import { hmacSha256Hex } from '../../core/crypto/hash';

const sha = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');

describe('canonical strings (docs/api.md "Authentication" test vectors)', () => {
  it('multipart example of docs/api.md "Authentication"', () => {
    const file = Buffer.from('fake image bytes');
    const s = canonicalMultipart(
      'post',
      '/v1/verifications/ID/media',
      [
        ['type', 'document'],
        ['side', 'front'],
        ['document_type', 'passport'],
      ],
      [file],
    );
    expect(s).toBe(`POST/v1/verifications/ID/media\ndocument_type=passport&side=front&type=document\n${sha(file)}`);
  });

  it('JSON: METHOD + path + body with no separators, method uppercased', () => {
    const body = Buffer.from('{"external_id":"a"}');
    const parts = canonicalJson('post', '/v1/verifications', body);
    expect(Buffer.concat(parts.map((p) => Buffer.from(p))).toString()).toBe('POST/v1/verifications{"external_id":"a"}');
  });

  it('query string kept as sent, in order', () => {
    const parts = canonicalJson('GET', '/v1/verifications/x?b=2&a=1', new Uint8Array());
    expect(parts[0]).toBe('GET/v1/verifications/x?b=2&a=1');
  });

  it('RFC 3986 encoding: unreserved kept, the rest percent-encoded in uppercase over UTF-8', () => {
    expect(rfc3986('AZaz09-._~')).toBe('AZaz09-._~');
    expect(rfc3986('a b+c/é')).toBe('a%20b%2Bc%2F%C3%A9');
    expect(rfc3986('*')).toBe('%2A');
  });

  it('fields sorted by name then value, joined with &', () => {
    expect(
      sortedFormFields([
        ['b', '2'],
        ['a', 'z'],
        ['a', 'y'],
      ]),
    ).toBe('a=y&a=z&b=2');
  });

  it('file hashes are lowercase hex, sorted, comma-joined', () => {
    const a = Buffer.from('a');
    const b = Buffer.from('b');
    expect(sortedFileHashes([b, a])).toBe([sha(a), sha(b)].sort().join(','));
    expect(sortedFileHashes([a])).toMatch(/^[0-9a-f]{64}$/);
  });

  it('an HMAC over byte parts equals one over the concatenation (the body is hashed as sent)', () => {
    const body = Buffer.from([0xff, 0x00, 0xc3]);
    const expected = createHmac('sha256', 'k')
      .update(Buffer.concat([Buffer.from('POST/p'), body]))
      .digest('hex');
    expect(hmacSha256Hex('k', canonicalJson('POST', '/p', body))).toBe(expected);
  });
});

describe('multipart signature properties', () => {
  const field = fc.tuple(fc.string({ minLength: 1, maxLength: 12 }), fc.string({ maxLength: 20 }));
  const file = fc.uint8Array({ minLength: 1, maxLength: 64 });

  it('reordering fields or files keeps the signature valid', () => {
    fc.assert(
      fc.property(
        fc.array(field, { maxLength: 6 }),
        fc.array(file, { maxLength: 4 }),
        fc.nat(),
        (fields, files, seed) => {
          const shuffle = <T>(xs: T[]) =>
            xs
              .map((x, i) => [((seed + 1) * (i + 7) * 2654435761) % 1000003, x] as const)
              .sort((p, q) => p[0] - q[0])
              .map((p) => p[1]);
          const a = signMultipartRequest('sk_test_secret', 'POST', '/v1/verifications/x/media', fields, files);
          const b = signMultipartRequest(
            'sk_test_secret',
            'POST',
            '/v1/verifications/x/media',
            shuffle(fields),
            shuffle(files),
          );
          expect(b).toBe(a);
        },
      ),
    );
  });

  it('changing one byte of a file, a field or the path breaks it', () => {
    fc.assert(
      fc.property(
        fc.array(field, { minLength: 1, maxLength: 5 }),
        fc.array(file, { minLength: 1, maxLength: 3 }),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        (fields, files, pick, delta) => {
          const base = signMultipartRequest('s', 'POST', '/v1/x', fields, files);
          // a file byte
          const f2 = files.map((f) => Uint8Array.from(f));
          const fi = pick % f2.length;
          const bi = pick % f2[fi].length;
          f2[fi][bi] = (f2[fi][bi] + delta) % 256;
          expect(signMultipartRequest('s', 'POST', '/v1/x', fields, f2)).not.toBe(base);
          // a field value
          const fl = fields.map(([k, v]) => [k, v] as [string, string]);
          fl[pick % fl.length][1] += String.fromCharCode(33 + (delta % 90));
          expect(signMultipartRequest('s', 'POST', '/v1/x', fl, files)).not.toBe(base);
          // the path
          expect(signMultipartRequest('s', 'POST', '/v1/y', fields, files)).not.toBe(base);
        },
      ),
    );
  });
});

describe('requestTarget: the path and query exactly as on the wire', () => {
  const req = (target: string | null, url = 'http://verify.test/v1/consent') =>
    new Request(url, { headers: target === null ? {} : { [REQUEST_TARGET_HEADER]: target } });

  it("ignores the header until the service's own server says it set it (a client cannot choose what is signed)", () => {
    expect(requestTarget(req('/v1/other?x=1'))).toBe('/v1/consent');
  });

  it("with the server's header: every byte of the query as sent, nothing decoded, re-encoded or reordered", () => {
    markRequestTargetTrusted();
    const asSent = [
      '/v1/verifications?external_id=a%41b&status=review',
      '/v1/verifications?external_id=%c3%a9&external_id=%C3%A9',
      '/v1/consent?a=\'b\'&c="d"',
      '/v1/consent?',
      '/v1/consent?a=b&&c',
      '/v1/consent?b=2&a=1',
      '/v1/consent?a=1+2&c=|^`{}[]',
      '/v1/consent?a=%ff',
      '/v1/consent?a=b;c=d/e?f',
      '/v1/verifications/ID/media?x=%2F',
    ];
    for (const t of asSent) expect(requestTarget(req(t))).toBe(t);
    // The absolute form loses only its scheme and authority; a fragment (never sent by HTTP clients) is dropped.
    expect(requestTarget(req('http://verify.test/v1/consent?a=%41'))).toBe('/v1/consent?a=%41');
    expect(requestTarget(req('/v1/consent?a=1#frag'))).toBe('/v1/consent?a=1');
    // And the canonical string carries it as is.
    expect(canonicalJson('get', requestTarget(req(asSent[0])), new Uint8Array())[0]).toBe(
      'GET/v1/verifications?external_id=a%41b&status=review',
    );
    expect(canonicalMultipart('POST', requestTarget(req(asSent[9])), [['type', 'selfie']], [])).toBe(
      'POST/v1/verifications/ID/media?x=%2F\ntype=selfie\n',
    );
  });
});

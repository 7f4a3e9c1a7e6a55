/**
 * The streaming multipart parser: the same form as undici's own parser for every well-formed body (any
 * fields, any files, cut into chunks anywhere), and a refusal, early, for every malformed one.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../errors';
import { MultipartParser, multipartBoundary, type MultipartLimits } from './multipart';

const LIMITS: MultipartLimits = { maxParts: 64, maxFieldBytes: 4096, maxFileBytes: 1 << 20, maxHeaderBytes: 2048, maxPreambleBytes: 1024 };

/** Serialises a form the way fetch does (undici), returning its bytes and Content-Type. */
async function encode(fields: [string, string][], files: [string, Uint8Array][]) {
  const fd = new FormData();
  for (const [k, v] of fields) fd.append(k, v);
  for (const [k, b] of files) fd.append(k, new Blob([b as BlobPart], { type: 'image/jpeg' }), 'f.jpg');
  const res = new Response(fd);
  return { bytes: new Uint8Array(await res.arrayBuffer()), contentType: res.headers.get('content-type')! };
}

function parse(bytes: Uint8Array, contentType: string, cuts: number[] = [], limits = LIMITS) {
  const p = new MultipartParser(multipartBoundary(contentType)!, limits);
  let at = 0;
  for (const c of [...cuts.filter((x) => x > 0 && x < bytes.length)].sort((a, b) => a - b).concat(bytes.length)) {
    p.write(bytes.subarray(at, c));
    at = c;
  }
  return p.end();
}

const codeOf = (f: () => unknown) => {
  try {
    f();
    return 'ok';
  } catch (e) {
    return e instanceof DomainError ? e.code : String(e);
  }
};

const crlf = (s: string) => Buffer.from(s.replace(/\n/g, '\r\n'), 'latin1');
const CT = 'multipart/form-data; boundary=XyZ';

describe('multipart parser', () => {
  it('property: parses what fetch sends exactly as undici reads it back, however the body is cut', async () => {
    const name = fc.stringMatching(/^[a-z_]{1,12}$/);
    const form = fc
      .record({
        fields: fc.array(fc.tuple(name, fc.string({ unit: 'grapheme', maxLength: 40 })), { maxLength: 6 }),
        files: fc.array(fc.tuple(name, fc.uint8Array({ maxLength: 3000 })), { maxLength: 3 }),
        cuts: fc.array(fc.nat({ max: 4000 }), { maxLength: 12 }),
      })
      .filter(({ fields, files }) => {
        const names = [...fields, ...files].map(([n]) => n);
        return names.length > 0 && new Set(names).size === names.length;
      });
    await fc.assert(
      fc.asyncProperty(form, async ({ fields, files, cuts }) => {
        const { bytes, contentType } = await encode(fields, files);
        const ours = parse(bytes, contentType, cuts);
        const theirs = await new Response(bytes as BodyInit, { headers: { 'content-type': contentType } }).formData();
        const theirFields = [...theirs.entries()].filter(([, v]) => typeof v === 'string');
        expect(ours.fields).toEqual(theirFields);
        expect(ours.files.map((f) => [f.field, Buffer.from(f.bytes).toString('hex'), f.type])).toEqual(
          files.map(([n, b]) => [n, Buffer.from(b).toString('hex'), 'image/jpeg']),
        );
        for (const f of ours.files) expect(f.sha256).toBe(createHash('sha256').update(f.bytes).digest('hex'));
      }),
      { numRuns: 150 },
    );
  });

  it('reads boundaries quoted or bare, and a legal preamble, epilogue and transport padding', () => {
    expect(multipartBoundary('multipart/form-data; boundary="a b:c"')).toBe('a b:c');
    expect(multipartBoundary('Multipart/Form-Data;boundary=XyZ')).toBe('XyZ');
    const body = crlf('preamble\n--XyZ  \nContent-Disposition: form-data; name="type"\n\nselfie\n--XyZ--\nepilogue');
    expect(parse(body, CT).fields).toEqual([['type', 'selfie']]);
  });

  const refused: [string, string | Buffer, string][] = [
    ['no closing boundary (truncated)', '--XyZ\nContent-Disposition: form-data; name="type"\n\nselfie', 'VALIDATION_ERROR'],
    ['truncated inside a part header', '--XyZ\nContent-Disposition: form-da', 'VALIDATION_ERROR'],
    ['no boundary at all', 'type=selfie', 'VALIDATION_ERROR'],
    ['a part without Content-Disposition', '--XyZ\nContent-Type: text/plain\n\nx\n--XyZ--', 'VALIDATION_ERROR'],
    ['a part without a name', '--XyZ\nContent-Disposition: form-data; filename="a"\n\nx\n--XyZ--', 'VALIDATION_ERROR'],
    ['a part that is not form-data', '--XyZ\nContent-Disposition: attachment; name="a"\n\nx\n--XyZ--', 'VALIDATION_ERROR'],
    ['junk after a boundary', '--XyZjunk\nContent-Disposition: form-data; name="a"\n\nx\n--XyZ--', 'VALIDATION_ERROR'],
    ['a field given twice', '--XyZ\nContent-Disposition: form-data; name="a"\n\nx\n--XyZ\nContent-Disposition: form-data; name="a"\n\ny\n--XyZ--', 'VALIDATION_ERROR'],
    ['an empty form', '--XyZ--', 'VALIDATION_ERROR'],
    ['a field that is not UTF-8', Buffer.concat([crlf('--XyZ\nContent-Disposition: form-data; name="a"\n\n'), Buffer.from([0xc3, 0x28]), crlf('\n--XyZ--')]), 'VALIDATION_ERROR'],
  ];
  for (const [name, body, code] of refused) {
    it(`refuses ${name}`, () => expect(codeOf(() => parse(typeof body === 'string' ? crlf(body) : body, CT))).toBe(code));
  }

  it('refuses a Content-Type without a usable boundary', () => {
    for (const ct of ['multipart/form-data', 'multipart/form-data; boundary=', 'multipart/form-data; boundary=' + 'x'.repeat(71), 'multipart/mixed; boundary=a', 'text/plain']) {
      expect(multipartBoundary(ct)).toBeNull();
    }
  });

  it('100,000 fields: refused at the first part over the limit, without reading further', () => {
    const one = (i: number) => `--XyZ\r\nContent-Disposition: form-data; name="f${i}"\r\n\r\nv\r\n`;
    const p = new MultipartParser('XyZ', { ...LIMITS, maxParts: 8 });
    let fed = 0;
    const code = codeOf(() => {
      for (let i = 0; i < 100_000; i++) {
        p.write(Buffer.from(one(i)));
        fed++;
      }
    });
    expect(code).toBe('VALIDATION_ERROR');
    // Eight parts were taken; the chunk that opens the ninth is refused, and nothing after it is read.
    expect(fed).toBe(8);
  });

  it('a file over its limit is refused with 413 while it streams; a long field or header block with 422', () => {
    const small = { ...LIMITS, maxFileBytes: 1000, maxFieldBytes: 10, maxHeaderBytes: 100 };
    const p = new MultipartParser('XyZ', small);
    p.write(crlf('--XyZ\nContent-Disposition: form-data; name="file"; filename="a.jpg"\n\n'));
    expect(codeOf(() => p.write(Buffer.alloc(2000, 1)))).toBe('PAYLOAD_TOO_LARGE');
    expect(codeOf(() => parse(crlf('--XyZ\nContent-Disposition: form-data; name="a"\n\n' + 'x'.repeat(11) + '\n--XyZ--'), CT, [], small))).toBe('VALIDATION_ERROR');
    expect(codeOf(() => parse(crlf('--XyZ\nContent-Disposition: form-data; name="a"; x="' + 'y'.repeat(200) + '"\n\nx\n--XyZ--'), CT, [], small))).toBe('VALIDATION_ERROR');
  });

  it('property: arbitrary bytes never crash it: the result is a form or a DomainError', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), fc.array(fc.nat({ max: 600 }), { maxLength: 5 }), (junk, cuts) => {
        const prefixed = Buffer.concat([crlf('--XyZ\nContent-Disposition: form-data; name="a"\n\n'), junk]);
        for (const body of [junk, prefixed]) {
          try {
            parse(body, CT, cuts);
          } catch (e) {
            expect(e).toBeInstanceOf(DomainError);
          }
        }
      }),
      { numRuns: 500 },
    );
  });
});

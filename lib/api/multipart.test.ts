/**
 * Reading multipart bodies (busboy underneath, our limits and spooling around it): the same form as undici's
 * own parser for every well-formed body (any fields, any files, cut into chunks anywhere), each file in a
 * temporary file that has no name on disk and is owner-only, closed when the form is disposed; and a refusal,
 * early, for every malformed one.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { DomainError } from '../core/errors';
import { multipartBoundary, readMultipart, type MultipartLimits, type ParsedForm } from './multipart';

const LIMITS: MultipartLimits = { maxParts: 64, maxFieldBytes: 4096, maxFileBytes: 1 << 20, maxHeaderBytes: 2048 };
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ov-multipart-test-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Serialises a form the way fetch does (undici), returning its bytes and Content-Type. */
async function encode(fields: [string, string][], files: [string, Uint8Array][]) {
  const fd = new FormData();
  for (const [k, v] of fields) fd.append(k, v);
  for (const [k, b] of files) fd.append(k, new Blob([b as BlobPart], { type: 'image/jpeg' }), 'f.jpg');
  const res = new Response(fd);
  return { bytes: new Uint8Array(await res.arrayBuffer()), contentType: res.headers.get('content-type')! };
}

/** A request whose body arrives in the pieces `cuts` makes (`delayMs` apart); `pulled` counts the pieces taken. */
function request(bytes: Uint8Array, contentType: string, cuts: number[] = [], delayMs = 0) {
  const at = [...new Set(cuts.filter((x) => x > 0 && x < bytes.length))].sort((a, b) => a - b).concat(bytes.length);
  const pieces = at.map((end, i) => bytes.subarray(i === 0 ? 0 : at[i - 1], end));
  const seen = { pulled: 0 };
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(c) {
        if (seen.pulled >= pieces.length) return c.close();
        if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
        c.enqueue(pieces[seen.pulled++]);
      },
    },
    { highWaterMark: 0 },
  );
  const req = new Request('http://verify.test/x', {
    method: 'POST',
    body,
    headers: { 'content-type': contentType },
    duplex: 'half',
  } as RequestInit);
  return { req, seen };
}

async function parse(bytes: Uint8Array, contentType: string, cuts: number[] = [], limits = LIMITS) {
  return readMultipart(request(bytes, contentType, cuts).req, contentType, limits, 16 << 20, tmp);
}

const codeOf = async (f: () => Promise<ParsedForm>) => {
  try {
    await (await f()).dispose();
    return 'ok';
  } catch (e) {
    return e instanceof DomainError ? e.code : String(e);
  }
};

const crlf = (s: string) => Buffer.from(s.replace(/\n/g, '\r\n'), 'latin1');
const CT = 'multipart/form-data; boundary=XyZ';

/** The descriptors this process holds open on spools under `tmp` (deleted files show as "… (deleted)"). */
const openSpools = () =>
  fs.readdirSync('/proc/self/fd').flatMap((fd) => {
    try {
      const target = fs.readlinkSync(`/proc/self/fd/${fd}`);
      return target.startsWith(tmp) ? [{ fd: Number(fd), target }] : [];
    } catch {
      return [];
    }
  });

describe('multipart bodies', () => {
  it('property: reads what fetch sends exactly as undici reads it back, however the body is cut', async () => {
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
        const ours = await parse(bytes, contentType, cuts);
        try {
          const theirs = await new Response(bytes as BodyInit, { headers: { 'content-type': contentType } }).formData();
          const theirFields = [...theirs.entries()].filter(([, v]) => typeof v === 'string');
          expect(ours.fields).toEqual(theirFields);
          const read = await Promise.all(
            ours.files.map(async (f) => [f.field, (await f.read()).toString('hex'), f.type]),
          );
          expect(read).toEqual(files.map(([n, b]) => [n, Buffer.from(b).toString('hex'), 'image/jpeg']));
          for (const [i, f] of ours.files.entries()) {
            expect(f.sha256).toBe(createHash('sha256').update(files[i][1]).digest('hex'));
            expect(f.size).toBe(files[i][1].byteLength);
          }
        } finally {
          await ours.dispose();
        }
      }),
      { numRuns: 150 },
    );
    expect(openSpools()).toEqual([]);
  });

  it('a file is spooled to a temporary file that is owner-only and has no name on disk, closed on dispose', async () => {
    const file = new Uint8Array(300_000).map((_, i) => i & 0xff);
    const { bytes, contentType } = await encode([['type', 'selfie']], [['file', file]]);
    const form = await parse(bytes, contentType, [1000, 70_000, 200_000]);
    expect(fs.readdirSync(tmp)).toEqual([]); // unlinked as soon as it was opened
    const spools = openSpools();
    expect(spools).toHaveLength(1);
    expect(spools[0].target).toMatch(/ov-upload-[0-9a-f]{24} \(deleted\)$/);
    expect(fs.fstatSync(spools[0].fd).mode & 0o777).toBe(0o600);
    expect(fs.fstatSync(spools[0].fd).size).toBe(file.byteLength);
    expect(Buffer.from(await form.files[0].read()).equals(Buffer.from(file))).toBe(true);
    await form.dispose();
    await form.dispose(); // twice is harmless
    expect(openSpools()).toEqual([]);
  });

  it('reads boundaries quoted or bare, and a legal preamble and epilogue', async () => {
    expect(multipartBoundary('multipart/form-data; boundary="a b:c"')).toBe('a b:c');
    expect(multipartBoundary('Multipart/Form-Data;boundary=XyZ')).toBe('XyZ');
    const body = crlf('preamble\n--XyZ\nContent-Disposition: form-data; name="type"\n\nselfie\n--XyZ--\nepilogue');
    const form = await parse(body, CT);
    expect(form.fields).toEqual([['type', 'selfie']]);
    await form.dispose();
  });

  const refused: [string, string | Buffer, string][] = [
    [
      'no closing boundary (truncated)',
      '--XyZ\nContent-Disposition: form-data; name="type"\n\nselfie',
      'VALIDATION_ERROR',
    ],
    [
      'truncated inside a file',
      '--XyZ\nContent-Disposition: form-data; name="file"; filename="a.jpg"\n\nabcdef',
      'VALIDATION_ERROR',
    ],
    ['truncated inside a part header', '--XyZ\nContent-Disposition: form-da', 'VALIDATION_ERROR'],
    ['no boundary at all', 'type=selfie', 'VALIDATION_ERROR'],
    ['a part without a name', '--XyZ\nContent-Disposition: form-data; filename="a"\n\nx\n--XyZ--', 'VALIDATION_ERROR'],
    [
      'only parts that are not form-data',
      '--XyZ\nContent-Disposition: attachment; name="a"\n\nx\n--XyZ--',
      'VALIDATION_ERROR',
    ],
    ['junk after a boundary', '--XyZjunk\nContent-Disposition: form-data; name="a"\n\nx\n--XyZ--', 'VALIDATION_ERROR'],
    [
      'a field given twice',
      '--XyZ\nContent-Disposition: form-data; name="a"\n\nx\n--XyZ\nContent-Disposition: form-data; name="a"\n\ny\n--XyZ--',
      'VALIDATION_ERROR',
    ],
    [
      'a file given twice',
      '--XyZ\nContent-Disposition: form-data; name="f"; filename="a"\n\nx\n--XyZ\nContent-Disposition: form-data; name="f"; filename="b"\n\ny\n--XyZ--',
      'VALIDATION_ERROR',
    ],
    ['an empty form', '--XyZ--', 'VALIDATION_ERROR'],
    [
      'a field that is not UTF-8',
      Buffer.concat([
        crlf('--XyZ\nContent-Disposition: form-data; name="a"\n\n'),
        Buffer.from([0xc3, 0x28]),
        crlf('\n--XyZ--'),
      ]),
      'VALIDATION_ERROR',
    ],
    [
      'a field with a NUL character',
      Buffer.concat([
        crlf('--XyZ\nContent-Disposition: form-data; name="a"\n\n'),
        Buffer.from([0x61, 0x00, 0x62]),
        crlf('\n--XyZ--'),
      ]),
      'VALIDATION_ERROR',
    ],
  ];
  for (const [name, body, code] of refused) {
    it(`refuses ${name}, leaving no spool open`, async () => {
      expect(await codeOf(() => parse(typeof body === 'string' ? crlf(body) : body, CT))).toBe(code);
      expect(openSpools()).toEqual([]);
    });
  }

  it('refuses a Content-Type without a usable boundary', () => {
    for (const ct of [
      'multipart/form-data',
      'multipart/form-data; boundary=',
      'multipart/form-data; boundary=' + 'x'.repeat(71),
      'multipart/mixed; boundary=a',
      'text/plain',
    ]) {
      expect(multipartBoundary(ct)).toBeNull();
    }
  });

  it('100,000 fields: refused at the first part over the limit, without reading further', async () => {
    const one = (i: number) => `--XyZ\r\nContent-Disposition: form-data; name="f${i}"\r\n\r\nv\r\n`;
    const pieces = Array.from({ length: 100_000 }, (_, i) => Buffer.from(one(i)));
    const bytes = Buffer.concat([...pieces, Buffer.from('--XyZ--\r\n')]);
    const cuts = pieces.map((_, i) => (i + 1) * pieces[0].length); // about one part a chunk
    const { req, seen } = request(bytes, CT, cuts);
    let error: unknown;
    try {
      await readMultipart(req, CT, { ...LIMITS, maxParts: 8 }, 16 << 20, tmp);
    } catch (e) {
      error = e;
    }
    expect((error as DomainError).code).toBe('VALIDATION_ERROR');
    expect((error as DomainError).details).toEqual({ fields: { body: ['At most 8 parts.'] } });
    // Refused at the ninth part; what the client sends after the answer is read and dropped, not parsed.
    expect(seen.pulled).toBeLessThan(20);
  });

  it('a file over its limit is refused with 413 while it streams; a long field with 422', async () => {
    const small = { ...LIMITS, maxFileBytes: 1000, maxFieldBytes: 10 };
    const bigFile = Buffer.concat([
      crlf('--XyZ\nContent-Disposition: form-data; name="file"; filename="a.jpg"\n\n'),
      Buffer.alloc(200_000, 1),
      crlf('\n--XyZ--'),
    ]);
    // A client on a network: a piece every 5 ms. The answer comes at the piece that passes the limit; what is
    // sent after it is read and dropped.
    const { req, seen } = request(
      bigFile,
      CT,
      Array.from({ length: 100 }, (_, i) => 100 + i * 2000),
      5,
    );
    let pulledWhenRefused = -1;
    const code = await codeOf(() =>
      readMultipart(req, CT, small, 16 << 20, tmp).finally(() => (pulledWhenRefused = seen.pulled)),
    );
    expect(code).toBe('PAYLOAD_TOO_LARGE');
    expect(pulledWhenRefused).toBeLessThan(5);
    expect(
      await codeOf(() =>
        parse(
          crlf('--XyZ\nContent-Disposition: form-data; name="a"\n\n' + 'x'.repeat(11) + '\n--XyZ--'),
          CT,
          [],
          small,
        ),
      ),
    ).toBe('VALIDATION_ERROR');
    expect(openSpools()).toEqual([]);
  });

  it('the whole body over its limit is 413, however its parts are sized', async () => {
    const { bytes, contentType } = await encode([['a', 'x'.repeat(2000)]], [['f', new Uint8Array(5000)]]);
    const code = await codeOf(() =>
      readMultipart(request(bytes, contentType, [100, 3000]).req, contentType, LIMITS, 4000, tmp),
    );
    expect(code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('property: arbitrary bytes never crash it: the result is a form or a DomainError, and no spool stays open', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 600 }),
        fc.array(fc.nat({ max: 600 }), { maxLength: 5 }),
        async (junk, cuts) => {
          const prefixed = Buffer.concat([
            crlf('--XyZ\nContent-Disposition: form-data; name="a"; filename="b"\n\n'),
            junk,
          ]);
          for (const body of [junk, prefixed]) {
            try {
              await (await parse(body, CT, cuts)).dispose();
            } catch (e) {
              expect(e).toBeInstanceOf(DomainError);
            }
          }
        },
      ),
      { numRuns: 300 },
    );
    expect(openSpools()).toEqual([]);
  });
});

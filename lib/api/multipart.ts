/**
 * multipart/form-data for the media endpoints, read as it streams. The parsing is @fastify/busboy's (RFC 7578
 * over RFC 2046); around it sit our limits and the spooling: each file goes, as it arrives, through a SHA-256 into
 * an owner-only temporary file unlinked the moment it is opened, never whole into memory; refusals come as early
 * as the stream allows (`maxParts`, `maxFieldBytes`, `maxFileBytes`, a name given twice, a field not UTF-8, a
 * body cut short). Why, in full: docs/architecture.md "Notes behind the code".
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Busboy, type BusboyFileStream } from '@fastify/busboy';
import { DomainError } from '../core/errors';
import { assertStorableText } from '../core/input-text';
import { streamBody, type ApiRequest } from './body';

export type MultipartLimits = {
  /** Parts in all (fields and files). */
  maxParts: number;
  /** Bytes of one non-file field's value. */
  maxFieldBytes: number;
  /** Bytes of one file. */
  maxFileBytes: number;
  /** Bytes of one part's header block (kept; a longer block is cut there, never buffered). */
  maxHeaderBytes: number;
};

/** A file of the form: its hash and size known, its bytes in a temporary file until `read()`. */
export type FormFile = { field: string; type: string; size: number; sha256: string; read: () => Promise<Buffer> };
/** The form: fields in the order sent, files, and `dispose()` (closes the temporary files; safe to call twice). */
export type ParsedForm = { fields: [string, string][]; files: FormFile[]; dispose: () => Promise<void> };

const malformed = (why: string) =>
  new DomainError('VALIDATION_ERROR', 'The multipart body could not be parsed.', { fields: { body: [why] } });

/** RFC 2046 bchars; 1 to 70 of them, not ending in a space. */
const BOUNDARY_RE = /^[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]$/;

/** The `key=value` parameters of a header value (after its first `;`), quoted strings unescaped. */
export function headerParams(value: string): Map<string, string> {
  const out = new Map<string, string>();
  const re = /;\s*([^=\s;]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/g;
  for (let m = re.exec(value); m; m = re.exec(value)) {
    const key = m[1].toLowerCase();
    if (!out.has(key)) out.set(key, m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : m[3].trim());
  }
  return out;
}

/** The boundary of a `multipart/form-data` Content-Type; null when it is not one or has no usable boundary. */
export function multipartBoundary(contentType: string | null): string | null {
  if (!contentType || !/^\s*multipart\/form-data\s*(;|$)/i.test(contentType)) return null;
  const b = headerParams(
    contentType.slice(contentType.indexOf(';') >= 0 ? contentType.indexOf(';') : contentType.length),
  ).get('boundary');
  return b !== undefined && BOUNDARY_RE.test(b) ? b : null;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A temporary file only this process can reach: created 0600 with O_EXCL under `dir`, unlinked at once. The
 * returned handle is the only way to it.
 */
async function anonymousFile(dir: string): Promise<FileHandle> {
  const p = path.join(dir, `ov-upload-${randomBytes(12).toString('hex')}`);
  const fh = await fs.open(p, 'wx+', 0o600);
  await fs.unlink(p).catch(async (e) => {
    await fh.close();
    throw e;
  });
  return fh;
}

type Spool = { field: string; type: string; size: number; sha256: string; fh: FileHandle | null };

/**
 * Reads a multipart body from `req` as it streams (at most `bodyLimit` bytes; 413 past it), with `limits`.
 * Every failure is a DomainError, and leaves no temporary file open. `tmpDir` is where the spools are created
 * (the system's temporary directory by default; tests give their own).
 */
export async function readMultipart(
  req: ApiRequest,
  contentType: string,
  limits: MultipartLimits,
  bodyLimit: number,
  tmpDir = os.tmpdir(),
): Promise<ParsedForm> {
  const fields: [string, string][] = [];
  const spools: Spool[] = [];
  const streams: BusboyFileStream[] = [];
  const pending: Promise<void>[] = [];
  let disposed = false;
  const seen = new Set<string>();
  let parts = 0;
  let failure: DomainError | null = null;
  const fail = (e: DomainError) => {
    failure ??= e;
  };
  const dispose = async () => {
    disposed = true;
    for (const s of streams) s.destroy();
    await Promise.allSettled(pending);
    await Promise.all(spools.splice(0).map((s) => s.fh?.close().catch(() => {})));
  };

  const named = (name: string | undefined | null): name is string => {
    if (!name) {
      fail(malformed('A part has no name.'));
      return false;
    }
    if (seen.has(name)) {
      fail(
        new DomainError('VALIDATION_ERROR', `The field ${name} is given more than once.`, {
          fields: { [name]: ['Given more than once.'] },
        }),
      );
      return false;
    }
    seen.add(name);
    parts++;
    return true;
  };

  const bb = Busboy({
    headers: { 'content-type': contentType },
    // Field values arrive as bytes (latin1 keeps one character per byte) and are decoded below, strictly.
    defCharset: 'latin1',
    isPartAFile: (_name, _type, filename) => filename !== undefined,
    limits: {
      parts: limits.maxParts,
      fieldSize: limits.maxFieldBytes,
      fileSize: limits.maxFileBytes,
      headerSize: limits.maxHeaderBytes,
      fieldNameSize: 200,
    },
  });

  bb.on('field', (name: string, value: string, _nameTruncated: boolean, valueTruncated: boolean) => {
    if (!named(name)) return;
    if (valueTruncated) {
      return fail(
        new DomainError('VALIDATION_ERROR', `The field ${name} is longer than ${limits.maxFieldBytes} bytes.`, {
          fields: { [name]: [`At most ${limits.maxFieldBytes} bytes.`] },
        }),
      );
    }
    let text: string;
    try {
      text = utf8.decode(Buffer.from(value, 'latin1'));
    } catch {
      return fail(
        new DomainError('VALIDATION_ERROR', `The field ${name} is not valid UTF-8.`, {
          fields: { [name]: ['Invalid UTF-8.'] },
        }),
      );
    }
    fields.push([name, text]);
  });

  bb.on('file', (name: string, stream: BusboyFileStream, _filename: string, _encoding: string, mimeType: string) => {
    // Listeners first, synchronously: the parser may report the part's end or its error at any moment.
    stream.on('error', () => fail(malformed('The body ended inside a file.')));
    if (!named(name) || failure) {
      stream.resume();
      return;
    }
    stream.on('limit', () =>
      fail(
        new DomainError('PAYLOAD_TOO_LARGE', `The file exceeds ${Math.round(limits.maxFileBytes / 1024 / 1024)} MiB.`, {
          limit_bytes: limits.maxFileBytes,
        }),
      ),
    );
    streams.push(stream);
    pending.push(spoolFile(name, mimeType, stream));
  });

  /** Hashes the file and writes it to its spool as it arrives, the stream paused while the disk writes. */
  function spoolFile(field: string, type: string, stream: BusboyFileStream): Promise<void> {
    const spool: Spool = { field, type, size: 0, sha256: '', fh: null };
    spools.push(spool); // in the form's order, before anything asynchronous
    const hash = createHash('sha256');
    let writes: Promise<unknown> = anonymousFile(tmpDir).then(
      async (fh) => {
        if (disposed) await fh.close();
        else spool.fh = fh;
      },
      () => fail(new DomainError('INTERNAL_ERROR', 'The upload could not be received.')),
    );
    stream.on('data', (chunk: Buffer) => {
      if (failure) return; // what is left of the part is drained, nothing kept
      hash.update(chunk);
      const at = spool.size;
      spool.size += chunk.length;
      stream.pause();
      writes = writes
        .then(() => spool.fh?.write(chunk, 0, chunk.length, at))
        .catch(() => fail(new DomainError('INTERNAL_ERROR', 'The upload could not be received.')))
        .finally(() => stream.resume());
    });
    return new Promise<void>((resolve) => {
      stream.once(
        'end',
        () =>
          void writes.then(() => {
            spool.sha256 = hash.digest('hex');
            resolve();
          }),
      );
      stream.once('error', () => void writes.then(() => resolve()));
      stream.once('close', () => void writes.then(() => resolve()));
    });
  }

  bb.on('partsLimit', () =>
    fail(
      new DomainError('VALIDATION_ERROR', `The form has more than ${limits.maxParts} parts.`, {
        fields: { body: [`At most ${limits.maxParts} parts.`] },
      }),
    ),
  );
  const finished = new Promise<void>((resolve) => {
    bb.on('error', (e: Error) => {
      fail(
        malformed(
          /unexpected end/i.test(e.message)
            ? 'The body ended before the closing boundary.'
            : 'A boundary or part header is malformed.',
        ),
      );
      resolve();
    });
    bb.on('finish', () => resolve());
  });

  const write = (chunk: Uint8Array) =>
    new Promise<void>((resolve) => {
      bb.write(chunk, () => resolve());
    });

  try {
    await streamBody(req, bodyLimit, async (chunk) => {
      if (failure) throw failure;
      await write(chunk);
      if (failure) throw failure;
    });
    bb.end();
    await finished;
    await Promise.all(pending);
    if (failure) throw failure;
    if (parts === 0) throw malformed('The body has no parts.');
    assertStorableText(Object.fromEntries(fields));
  } catch (e) {
    bb.destroy();
    await dispose();
    throw e instanceof DomainError ? e : malformed('The body could not be read.');
  }

  const files: FormFile[] = spools.map((s) => ({
    field: s.field,
    type: s.type,
    size: s.size,
    sha256: s.sha256,
    read: async () => {
      const out = Buffer.allocUnsafe(s.size);
      let at = 0;
      while (at < s.size) {
        const { bytesRead } = await s.fh!.read(out, at, s.size - at, at);
        if (bytesRead === 0) break;
        at += bytesRead;
      }
      return out.subarray(0, at);
    },
  }));
  return { fields, files, dispose };
}

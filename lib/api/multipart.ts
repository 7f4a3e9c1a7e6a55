/**
 * A strict, streaming multipart/form-data parser (RFC 7578 over RFC 2046) for the media endpoints. It is
 * fed the body chunk by chunk as it arrives and refuses as early as it can: too many parts, a part's headers
 * too long, a field too long, a file over the limit, a name given twice, a bad boundary line. Each file's
 * SHA-256 is computed while it streams, so the canonical string is ready when the body ends. Nothing is
 * decoded beyond the field values (UTF-8, strictly); files are kept as bytes.
 */
import { createHash, type Hash } from 'node:crypto';
import { DomainError } from '../errors';

export type MultipartLimits = {
  /** Parts in all (fields and files). */
  maxParts: number;
  /** Bytes of one non-file field's value. */
  maxFieldBytes: number;
  /** Bytes of one file. */
  maxFileBytes: number;
  /** Bytes of one part's header block. */
  maxHeaderBytes: number;
  /** Bytes before the first boundary (a preamble is legal, but nobody needs a long one). */
  maxPreambleBytes: number;
};

export type FormFile = { field: string; bytes: Uint8Array; type: string; sha256: string };
export type ParsedForm = { fields: [string, string][]; files: FormFile[] };

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
  const b = headerParams(contentType.slice(contentType.indexOf(';') >= 0 ? contentType.indexOf(';') : contentType.length)).get('boundary');
  return b !== undefined && BOUNDARY_RE.test(b) ? b : null;
}

type Part = { name: string; file: boolean; type: string; chunks: Buffer[]; size: number; hash: Hash | null };
type State = 'preamble' | 'afterBoundary' | 'headers' | 'body' | 'done';

const CRLFCRLF = Buffer.from('\r\n\r\n');
const utf8 = new TextDecoder('utf-8', { fatal: true });
const lenient = new TextDecoder('utf-8');

export class MultipartParser {
  private readonly delimiter: Buffer;
  // A CRLF in front, so the first boundary line reads like every other one ("\r\n--boundary").
  private buf: Buffer = Buffer.from('\r\n');
  private state: State = 'preamble';
  private part: Part | null = null;
  private preamble = -2;
  private parts = 0;
  private readonly seen = new Set<string>();
  private readonly out: ParsedForm = { fields: [], files: [] };

  constructor(
    boundary: string,
    private readonly limits: MultipartLimits,
  ) {
    this.delimiter = Buffer.from(`\r\n--${boundary}`, 'latin1');
  }

  /** Feeds the next chunk of the body; throws the error the request gets as soon as one is certain. */
  write(chunk: Uint8Array) {
    if (this.state === 'done') return; // the epilogue is ignored (the caller still counts its bytes)
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : Buffer.from(chunk);
    while (this.step());
  }

  /** The body has ended: the form, or the error of a truncated one. */
  end(): ParsedForm {
    if (this.state !== 'done') throw malformed('The body ended before the closing boundary.');
    return this.out;
  }

  /** One move of the state machine; false when it needs more bytes. */
  private step(): boolean {
    switch (this.state) {
      case 'preamble': {
        const i = this.buf.indexOf(this.delimiter);
        const skipped = i < 0 ? Math.max(0, this.buf.length - this.delimiter.length + 1) : i;
        this.preamble += skipped;
        if (this.preamble > this.limits.maxPreambleBytes) throw malformed('No boundary line where the body starts.');
        this.buf = this.buf.subarray(i < 0 ? skipped : i + this.delimiter.length);
        if (i < 0) return false;
        this.state = 'afterBoundary';
        return true;
      }
      case 'afterBoundary': {
        if (this.buf.length < 2) return false;
        if (this.buf[0] === 0x2d && this.buf[1] === 0x2d) {
          if (this.part !== null || this.parts === 0) throw malformed('The body has no parts.');
          this.state = 'done';
          this.buf = Buffer.alloc(0);
          return false;
        }
        let j = 0;
        while (j < this.buf.length && (this.buf[j] === 0x20 || this.buf[j] === 0x09)) j++;
        if (j > 64) throw malformed('A boundary line is followed by junk.');
        if (this.buf.length < j + 2) return false;
        if (this.buf[j] !== 0x0d || this.buf[j + 1] !== 0x0a) throw malformed('A boundary line is followed by junk.');
        this.buf = this.buf.subarray(j + 2);
        if (++this.parts > this.limits.maxParts) {
          throw new DomainError('VALIDATION_ERROR', `The form has more than ${this.limits.maxParts} parts.`, {
            fields: { body: [`At most ${this.limits.maxParts} parts.`] },
          });
        }
        this.state = 'headers';
        return true;
      }
      case 'headers': {
        // An empty header block is a CRLF right away; a part without Content-Disposition is refused below.
        const i = this.buf.subarray(0, 2).equals(CRLFCRLF.subarray(0, 2)) ? -2 : this.buf.indexOf(CRLFCRLF);
        if (i === -1) {
          if (this.buf.length > this.limits.maxHeaderBytes) throw malformed(`A part's headers exceed ${this.limits.maxHeaderBytes} bytes.`);
          return false;
        }
        if (i > this.limits.maxHeaderBytes) throw malformed(`A part's headers exceed ${this.limits.maxHeaderBytes} bytes.`);
        const head = i < 0 ? '' : lenient.decode(this.buf.subarray(0, i));
        this.buf = this.buf.subarray(i < 0 ? 2 : i + 4);
        this.part = this.startPart(head);
        this.state = 'body';
        return true;
      }
      case 'body': {
        const i = this.buf.indexOf(this.delimiter);
        if (i < 0) {
          // Keep what could be the start of a delimiter split across chunks.
          const keep = this.delimiter.length - 1;
          if (this.buf.length > keep) {
            this.take(this.buf.subarray(0, this.buf.length - keep));
            this.buf = this.buf.subarray(this.buf.length - keep);
          }
          return false;
        }
        this.take(this.buf.subarray(0, i));
        this.finishPart();
        this.buf = this.buf.subarray(i + this.delimiter.length);
        this.state = 'afterBoundary';
        return true;
      }
      case 'done':
        return false;
    }
  }

  private startPart(head: string): Part {
    const headers = new Map<string, string>();
    for (const line of head.split('\r\n')) {
      if (line === '') continue;
      const colon = line.indexOf(':');
      if (colon <= 0 || /^[ \t]/.test(line)) throw malformed('A part has a malformed header line.');
      headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
    const disposition = headers.get('content-disposition') ?? '';
    if (!/^form-data\s*(;|$)/i.test(disposition)) throw malformed('A part has no Content-Disposition: form-data.');
    const params = headerParams(disposition.slice(disposition.indexOf(';') >= 0 ? disposition.indexOf(';') : disposition.length));
    const name = params.get('name');
    if (!name) throw malformed('A part has no name.');
    if (this.seen.has(name)) {
      throw new DomainError('VALIDATION_ERROR', `The field ${name} is given more than once.`, { fields: { [name]: ['Given more than once.'] } });
    }
    this.seen.add(name);
    const file = params.has('filename') || params.has('filename*');
    return { name, file, type: headers.get('content-type') ?? '', chunks: [], size: 0, hash: file ? createHash('sha256') : null };
  }

  private take(data: Buffer) {
    if (data.length === 0) return;
    const p = this.part!;
    p.size += data.length;
    if (p.file) {
      if (p.size > this.limits.maxFileBytes) {
        throw new DomainError('PAYLOAD_TOO_LARGE', `The file exceeds ${Math.round(this.limits.maxFileBytes / 1024 / 1024)} MiB.`, {
          limit_bytes: this.limits.maxFileBytes,
        });
      }
      p.hash!.update(data);
    } else if (p.size > this.limits.maxFieldBytes) {
      throw new DomainError('VALIDATION_ERROR', `The field ${p.name} is longer than ${this.limits.maxFieldBytes} bytes.`, {
        fields: { [p.name]: [`At most ${this.limits.maxFieldBytes} bytes.`] },
      });
    }
    // A copy: the parser's buffer is a window on chunks that should not be kept alive.
    p.chunks.push(Buffer.from(data));
  }

  private finishPart() {
    const p = this.part!;
    const bytes = p.chunks.length === 1 ? p.chunks[0] : Buffer.concat(p.chunks);
    if (p.file) {
      this.out.files.push({ field: p.name, bytes, type: p.type, sha256: p.hash!.digest('hex') });
    } else {
      let value: string;
      try {
        value = utf8.decode(bytes);
      } catch {
        throw new DomainError('VALIDATION_ERROR', `The field ${p.name} is not valid UTF-8.`, { fields: { [p.name]: ['Invalid UTF-8.'] } });
      }
      this.out.fields.push([p.name, value]);
    }
    this.part = null;
  }
}

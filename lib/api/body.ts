import { DomainError } from '../errors';

export const JSON_BODY_LIMIT = 64 * 1024;

/**
 * Reads the raw body, refusing it with 413 as soon as it passes `limit` bytes (and at once when
 * Content-Length already says so), so an oversized upload is never buffered whole.
 */
export async function readBodyLimited(req: Request, limit: number): Promise<Uint8Array> {
  const declared = Number(req.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
  if (!req.body) return new Uint8Array(0);
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let off = 0;
  for (const c of chunks) {
    out.set(c, off);
    off += c.byteLength;
  }
  return out;
}

function tooLarge(limit: number) {
  return new DomainError('PAYLOAD_TOO_LARGE', `The request body exceeds ${Math.round(limit / 1024)} KiB.`, {
    limit_bytes: limit,
  });
}

export function isJsonContentType(value: string | null): boolean {
  if (!value) return false;
  const type = value.split(';')[0].trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

export function parseJsonBody(raw: Uint8Array): unknown {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(raw);
  } catch {
    throw new DomainError('VALIDATION_ERROR', 'The request body is not valid UTF-8.', { fields: { body: ['Invalid UTF-8'] } });
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new DomainError('VALIDATION_ERROR', 'The request body is not valid JSON.', {
      fields: { body: [(e as Error).message] },
    });
  }
}

/**
 * JSON kept as it was sent. `external_metadata` is the integrator's object and docs/api.md says it comes back
 * "unchanged": a jsonb column reorders its keys (shortest first) and a JavaScript number loses digits
 * (`12345678901234567890`, `0.1000000000000000055511`), so the field's own text is kept from the request body
 * and written back into responses and webhook bodies as it came: same keys in the same order, the same
 * number literals. Only insignificant whitespace is dropped and strings take the canonical escaping of the
 * webhook body (unescaped slashes and unicode), so the value is canonical JSON like the rest of the body.
 */
import { randomUUID } from 'node:crypto';

const WS = new Set([' ', '\t', '\n', '\r']);

function skipWs(s: string, i: number): number {
  while (i < s.length && WS.has(s[i])) i++;
  return i;
}

/** The end (exclusive) of the string token starting at `i` (a `"`). */
function stringEnd(s: string, i: number): number {
  for (let j = i + 1; j < s.length; j++) {
    if (s[j] === '\\') j++;
    else if (s[j] === '"') return j + 1;
  }
  throw new SyntaxError('Unterminated string in JSON.');
}

/** The end (exclusive) of the value starting at `i` (no leading whitespace). */
function valueEnd(s: string, i: number): number {
  const c = s[i];
  if (c === '"') return stringEnd(s, i);
  if (c === '{' || c === '[') {
    let depth = 0;
    for (let j = i; j < s.length; j++) {
      const d = s[j];
      if (d === '"') j = stringEnd(s, j) - 1;
      else if (d === '{' || d === '[') depth++;
      else if (d === '}' || d === ']') {
        depth--;
        if (depth === 0) return j + 1;
      }
    }
    throw new SyntaxError('Unterminated container in JSON.');
  }
  let j = i;
  while (j < s.length && !WS.has(s[j]) && s[j] !== ',' && s[j] !== '}' && s[j] !== ']') j++;
  return j;
}

/**
 * The raw text of member `key` of the top-level object in `text` (valid JSON, already parsed once), or
 * undefined. Of a key given twice, the last (as JSON.parse takes it). Keys are compared decoded, so an
 * escaped spelling of the name is the same member.
 */
export function rawMember(text: string, key: string): string | undefined {
  let i = skipWs(text, 0);
  if (text[i] !== '{') return undefined;
  i = skipWs(text, i + 1);
  let found: string | undefined;
  while (i < text.length && text[i] !== '}') {
    const kEnd = stringEnd(text, i);
    const name = JSON.parse(text.slice(i, kEnd)) as string;
    i = skipWs(text, kEnd);
    i = skipWs(text, i + 1); // the colon
    const vEnd = valueEnd(text, i);
    if (name === key) found = text.slice(i, vEnd);
    i = skipWs(text, vEnd);
    if (text[i] === ',') i = skipWs(text, i + 1);
  }
  return found;
}

/**
 * Valid JSON text without insignificant whitespace, strings re-escaped canonically (JSON.stringify's
 * escaping: slashes and non-ASCII characters as they are), every other token as it is: key order, duplicate
 * keys and number literals are kept.
 */
export function compactJson(raw: string): string {
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (c === '"') {
      const end = stringEnd(raw, i);
      out += JSON.stringify(JSON.parse(raw.slice(i, end)));
      i = end - 1;
    } else if (!WS.has(c)) out += c;
  }
  return out;
}

const BRAND = Symbol.for('open-verify/RawJson');

/** A value to be written into serialised JSON as this text (compacted), not re-serialised. */
export class RawJson {
  /** By brand, not class identity (the production build may bundle this module more than once; lib/core/errors.ts). */
  static [Symbol.hasInstance](x: unknown): boolean {
    return typeof x === 'object' && x !== null && (x as Record<symbol, unknown>)[BRAND] === true;
  }
  readonly [BRAND] = true;
  readonly text: string;
  constructor(text: string) {
    this.text = compactJson(text);
  }
}

/**
 * JSON.stringify, but each RawJson in `value` is written as its own text. A placeholder with a random part
 * stands in for it during serialisation, so no value of the caller's can collide with it.
 */
export function stringifyJson(value: unknown): string {
  const raws: string[] = [];
  let nonce = '';
  const out = JSON.stringify(value, (_key, v: unknown) => {
    if (!(v instanceof RawJson)) return v;
    nonce ||= `\u0000ov-raw-${randomUUID()}:`;
    raws.push(v.text);
    return `${nonce}${raws.length - 1}`;
  });
  if (raws.length === 0) return out;
  let result = out;
  raws.forEach((text, n) => {
    const token = JSON.stringify(`${nonce}${n}`);
    const at = result.indexOf(token);
    result = result.slice(0, at) + text + result.slice(at + token.length);
  });
  return result;
}

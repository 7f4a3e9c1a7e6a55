/**
 * Text Postgres cannot store: a NUL character (U+0000) and an unpaired UTF-16 surrogate (a JSON `"\ud800"`).
 * Postgres refuses both in `text` and `jsonb`, and the refusal surfaced as a 500. Input is checked once, where it
 * enters: the /v1 JSON bodies, query strings and multipart fields (lib/api), and the admin area's forms and
 * search parameters (app/admin/form.ts, components/admin/ListPage.tsx). Such input is refused as
 * VALIDATION_ERROR naming the field (docs/api.md "Errors"); nothing downstream has to think about it.
 */
import { DomainError } from './errors';

const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const MESSAGE = 'Contains a NUL character or an unpaired surrogate.';
const KEY_MESSAGE = 'A key contains a NUL character or an unpaired surrogate.';
/** Enough to point at the problem; a body of a thousand bad strings does not make a thousand-line answer. */
const MAX_REPORTED = 20;

export const isStorableText = (s: string) => !UNSTORABLE.test(s);

/**
 * Every place in `value` (parsed JSON, a form's or a query's fields) that holds such text, as `details.fields`:
 * a string at `external_metadata.a` is reported there; a bad key is reported at the object that holds it
 * (`topLevel` for the value itself: `body` for a JSON body). null when there is none.
 */
export function storableTextProblems(value: unknown, topLevel = 'body'): Record<string, string[]> | null {
  const out: Record<string, string[]> = Object.create(null);
  let n = 0;
  const report = (at: string, message: string) => {
    if (n >= MAX_REPORTED) return;
    if (!out[at]) n++;
    const list = (out[at] ??= []);
    if (!list.includes(message)) list.push(message);
  };
  const walk = (v: unknown, at: string) => {
    if (n >= MAX_REPORTED) return;
    if (typeof v === 'string') {
      if (UNSTORABLE.test(v)) report(at || topLevel, MESSAGE);
      return;
    }
    if (!v || typeof v !== 'object') return;
    if (Array.isArray(v)) {
      v.forEach((x, i) => walk(x, at ? `${at}.${i}` : String(i)));
      return;
    }
    for (const [k, x] of Object.entries(v)) {
      if (UNSTORABLE.test(k)) {
        report(at || topLevel, KEY_MESSAGE);
        continue;
      }
      walk(x, at ? `${at}.${k}` : k);
    }
  };
  walk(value, '');
  return n === 0 ? null : out;
}

/** Throws VALIDATION_ERROR (fields as above) when `value` holds text Postgres cannot store. */
export function assertStorableText(
  value: unknown,
  topLevel = 'body',
  message = 'The request has invalid fields.',
): void {
  const fields = storableTextProblems(value, topLevel);
  if (fields) throw new DomainError('VALIDATION_ERROR', message, { fields });
}

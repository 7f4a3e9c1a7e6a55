/**
 * The admin area composes typed components (components/admin/ui) instead of repeating class strings: no class
 * string of more than three Tailwind utilities appears twice anywhere in app/admin or components/admin. A
 * repeated one belongs in a component or a variant (docs/admin-guide.md "How the admin area is built").
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../../..');
const MAX_UTILITIES = 3;
/** Utilities written as one word; any other utility has a dash or a variant prefix. */
const SINGLE = new Set([
  'flex',
  'grid',
  'block',
  'inline',
  'hidden',
  'contents',
  'table',
  'underline',
  'uppercase',
  'lowercase',
  'italic',
  'truncate',
  'border',
  'rounded',
  'shadow',
  'relative',
  'absolute',
  'fixed',
  'sticky',
  'grow',
  'shrink',
  'ring',
  'outline',
  'transition',
  'invisible',
  'visible',
  'static',
  'isolate',
]);
const isUtility = (t: string) =>
  /^[a-z0-9!\-:[\]/.%_()&>*~#'=]+$/.test(t) && (t.includes('-') || t.includes(':') || SINGLE.has(t));

function sources(dir: string): string[] {
  return fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) return sources(rel);
    return /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) ? [rel] : [];
  });
}

/** Every string literal of the file that is a list of more than MAX_UTILITIES utilities. */
function classStrings(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(["'`])((?:(?!\1)[^\n\\$])*)\1/g)) {
    const tokens = m[2].trim().split(/\s+/);
    if (tokens.length > MAX_UTILITIES && tokens.every(isUtility)) out.push(tokens.join(' '));
  }
  return out;
}

/** Class strings (of more than MAX_UTILITIES utilities) written more than once, with where. */
function repeatedClassStrings(files: { file: string; text: string }[]): Record<string, string[]> {
  const where = new Map<string, string[]>();
  for (const { file, text } of files) for (const c of classStrings(text)) where.set(c, [...(where.get(c) ?? []), file]);
  return Object.fromEntries([...where].filter(([, at]) => at.length > 1));
}

describe('admin class strings', () => {
  it('finds a repeated class string (the check itself)', () => {
    const page =
      '<div className="flex flex-wrap items-center gap-2"><p className="text-sm">Some words of a sentence here</p></div>';
    expect(
      repeatedClassStrings([
        { file: 'a.tsx', text: page },
        { file: 'b.tsx', text: page },
      ]),
    ).toEqual({ 'flex flex-wrap items-center gap-2': ['a.tsx', 'b.tsx'] });
  });

  it('no admin page or component repeats a class string of more than three utilities', () => {
    const files = [...sources('app/admin'), ...sources('components/admin')].map((file) => ({
      file,
      text: fs.readFileSync(path.join(root, file), 'utf8'),
    }));
    expect(files.length).toBeGreaterThan(40);
    expect(repeatedClassStrings(files)).toEqual({});
  });
});

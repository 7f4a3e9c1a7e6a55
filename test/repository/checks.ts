/**
 * The repository stands on its own (docs/README.md): no tracked file names the sources the contract was written
 * from or points at a path outside the repository, and every relative link of the documentation resolves to a
 * tracked file and, for `#anchor`s, to a heading of it. Pure functions over file contents, so the checks are
 * tested on crafted input as well as run on the real tree (test/repository/repository.test.ts).
 */
import path from 'node:path';

export type Finding = { file: string; line: number; problem: string };

/** The contract's source files, named nowhere in the repository (built here, so this file does not name them). */
export const FORBIDDEN_NAMES: readonly string[] = [
  ['interface', 'md'].join('.'),
  ['decisions', 'md'].join('.'),
  ['shared', 'spec'].join('/'),
  ['shared', 'design'].join('/'),
];

/** The one outside place the repository may name: the labelled photo sets, which may not be redistributed. */
const ALLOWED_OUTSIDE = [/^shared\/eval\/(dev|calib)(\/|$)/];

const lineOf = (text: string, index: number) => text.slice(0, index).split('\n').length;

/**
 * Outside references in one tracked file: a forbidden name anywhere, or a relative path (`../…`) that climbs
 * above the repository's root (other than the labelled photo sets).
 */
export function outsideReferences(file: string, text: string): Finding[] {
  const out: Finding[] = [];
  const lower = text.toLowerCase();
  for (const name of FORBIDDEN_NAMES) {
    for (let i = lower.indexOf(name); i !== -1; i = lower.indexOf(name, i + 1)) {
      out.push({ file, line: lineOf(text, i), problem: `names ${name}` });
    }
  }
  const dir = path.posix.dirname(file);
  const allowed = (outside: string) => ALLOWED_OUTSIDE.some((re) => re.test(outside));
  for (const m of text.matchAll(/(?:\.\.\/)+[^\s'"`)\]>,;]*/g)) {
    // Read from the file's folder (a link, an import) it must stay inside; read from the repository's root (a
    // command's argument) it must not reach the folder beside the repository other than the photo sets.
    const fromFile = path.posix.normalize(path.posix.join(dir, m[0]));
    const fromRoot = path.posix.normalize(m[0]);
    const climbs = fromFile.startsWith('../') && (fromFile.startsWith('../../') || !allowed(fromFile.slice(3)));
    const sibling = /^\.\.\/shared\//.test(fromRoot) && !allowed(fromRoot.slice(3));
    if (climbs || sibling)
      out.push({ file, line: lineOf(text, m.index), problem: `points outside the repository: ${m[0]}` });
  }
  for (const m of text.matchAll(/\/work\/shared\/[^\s'"`)\]>,;]*/g)) {
    if (!allowed(m[0].slice('/work/'.length)))
      out.push({ file, line: lineOf(text, m.index), problem: `points outside the repository: ${m[0]}` });
  }
  return out;
}

/** Markdown text with fenced code blocks and inline code blanked out (same length, same lines). */
function withoutCode(md: string): string {
  const blank = (s: string) => s.replace(/[^\n]/g, ' ');
  return md.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, blank).replace(/`[^`\n]*`/g, blank);
}

/** GitHub's anchor for each heading of a markdown file (lowercased, punctuation dropped, spaces to hyphens, -1, -2 for repeats). */
export function headingAnchors(md: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const text = md.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const m of text.matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const base = m[1]
      .replace(/<[^>]+>/g, '')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** The relative link targets of a markdown file, with their lines (inline links, images and reference definitions). */
export function relativeLinks(md: string): { target: string; line: number }[] {
  const text = withoutCode(md);
  const out: { target: string; line: number }[] = [];
  const add = (raw: string, index: number) => {
    const target = raw
      .trim()
      .replace(/^<(.*)>$/, '$1')
      .replace(/\s+("[^"]*"|'[^']*')$/, '');
    if (!target || /^[a-z][a-z0-9+.-]*:/i.test(target)) return; // http:, https:, mailto:, …
    out.push({ target, line: lineOf(text, index) });
  };
  for (const m of text.matchAll(/\]\(((?:[^()\s]|\([^()]*\))+(?:\s+"[^"]*")?)\)/g)) add(m[1], m.index);
  for (const m of text.matchAll(/^\s{0,3}\[[^\]]+\]:\s+(\S+)/gm)) add(m[1], m.index);
  return out;
}

/**
 * Broken links of one markdown file: a target that is not a tracked file (or a folder holding one), or an
 * anchor that is no heading of the markdown file it names. `read` returns a tracked markdown file's text.
 */
export function brokenLinks(
  file: string,
  md: string,
  tracked: ReadonlySet<string>,
  read: (file: string) => string,
): Finding[] {
  const out: Finding[] = [];
  const dir = path.posix.dirname(file);
  const folders = new Set<string>();
  for (const f of tracked) for (let d = path.posix.dirname(f); d !== '.'; d = path.posix.dirname(d)) folders.add(d);
  for (const { target, line } of relativeLinks(md)) {
    const hash = target.indexOf('#');
    const pathPart = decodeURI(hash === -1 ? target : target.slice(0, hash));
    const anchor = hash === -1 ? null : decodeURIComponent(target.slice(hash + 1));
    const resolved = pathPart ? path.posix.normalize(path.posix.join(dir, pathPart)).replace(/\/$/, '') : file;
    if (!tracked.has(resolved) && !folders.has(resolved)) {
      out.push({ file, line, problem: `links to ${target}: no such tracked file` });
      continue;
    }
    if (anchor !== null && resolved.endsWith('.md') && !headingAnchors(read(resolved)).has(anchor.toLowerCase())) {
      out.push({ file, line, problem: `links to ${target}: no heading #${anchor} in ${resolved}` });
    }
  }
  return out;
}

/** A heading's text as a citation quotes it: no markdown emphasis or code marks, lowercase. */
const headingText = (s: string) => s.replace(/[`*_]/g, '').replace(/\s+/g, ' ').trim().toLowerCase();

/** The headings of a markdown file, as text (code blocks left out). */
export function headings(md: string): string[] {
  const text = md.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  return [...text.matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)].map((m) => headingText(m[1]));
}

/**
 * Section citations (`docs/api.md "Errors"`, `SECURITY.md "Logs"`, the way code comments cite the documentation)
 * that name no heading of that file: the quoted text must begin a heading (a comment may shorten it, or wrap it
 * over lines). `headingsOf` returns null for a file that is not tracked.
 */
export function brokenCitations(file: string, text: string, headingsOf: (doc: string) => string[] | null): Finding[] {
  const out: Finding[] = [];
  for (const m of text.matchAll(
    /\b(SECURITY\.md|docs\/[\w/-]+\.md) "([^"\n]+(?:\n[ \t]*(?:\*|\/\/|#)?[ \t]*[^"\n]+)?)"/g,
  )) {
    const [, doc, quoted] = m;
    const hs = headingsOf(doc);
    const cited = headingText(quoted.replace(/\n[ \t]*(?:\*|\/\/|#)?[ \t]*/g, ' '));
    if (!hs) out.push({ file, line: lineOf(text, m.index), problem: `cites ${doc}, which is not a tracked file` });
    else if (!hs.some((h) => h.startsWith(cited)))
      out.push({ file, line: lineOf(text, m.index), problem: `cites ${doc} "${cited}": no such heading` });
  }
  return out;
}

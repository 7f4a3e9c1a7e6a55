/**
 * The repository stands on its own (docs/README.md): every tracked file is checked for names of the contract's
 * sources and for paths outside the repository, and every relative link of README.md and docs/ must resolve to a
 * tracked file and heading. The checks themselves are tested on crafted input, so a broken checker cannot pass a
 * broken tree. Reads files only: no server, no database.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { brokenCitations, brokenLinks, FORBIDDEN_NAMES, headingAnchors, headings, outsideReferences } from './checks';

const root = path.resolve(import.meta.dirname, '../..');
const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' }).split('\0').filter(Boolean);
const trackedSet = new Set(tracked);
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');
const isText = (buf: Buffer) => !buf.subarray(0, 8000).includes(0);
/** Crafted violations are built at run time, so this file does not commit one itself. */
const up = '..' + '/';
const docsDir = 'docs' + '/';
const show = (fs: { file: string; line: number; problem: string }[]) =>
  fs.map((f) => `${f.file}:${f.line}: ${f.problem}`);

describe('the checks, on crafted input', () => {
  it("flags every name of the contract's sources, in any case", () => {
    for (const name of FORBIDDEN_NAMES) {
      expect(show(outsideReferences('lib/x.ts', `// see ${name.toUpperCase()} "Events"\n`))).toEqual([
        `lib/x.ts:1: names ${name}`,
      ]);
    }
  });

  it('flags a relative path or link that climbs above the root, and paths to the folder beside it', () => {
    expect(show(outsideReferences('README.md', 'The contract is [there](../elsewhere/spec.md).'))).toEqual([
      'README.md:1: points outside the repository: ../elsewhere/spec.md',
    ]);
    expect(outsideReferences('docs/a.md', 'see ../../notes.md')).toHaveLength(1);
    expect(outsideReferences('lib/a/b.ts', `import x from '${up}${up}${up}outside';`)).toHaveLength(1);
    expect(outsideReferences('docs/a.md', `run python3 ${up}shared/tools/imports.py`)).toHaveLength(1);
    expect(
      outsideReferences('scripts/a.ts', `const f = '${['', 'work', 'shared', 'tools', 'x'].join('/')}';`),
    ).toHaveLength(1);
  });

  it('allows paths inside the repository and the labelled photo sets', () => {
    expect(outsideReferences('server/ops-cli.test.ts', "path.resolve(import.meta.dirname, '../docs/cli.md')")).toEqual(
      [],
    );
    expect(outsideReferences('lib/a/b.ts', "import { x } from '../../lib/db/client';")).toEqual([]);
    expect(outsideReferences('README.md', 'npm run evaluate -- ../shared/eval/dev and ../shared/eval/calib')).toEqual(
      [],
    );
    expect(outsideReferences('docs/accuracy.md', '`../shared/eval/calib`')).toEqual([]);
  });

  it("computes GitHub's heading anchors", () => {
    const anchors = headingAnchors(
      '# API reference\n## Speed (`npm run bench:admin`)\n## Rotating `ENCRYPTION_KEY` without downtime\n## Notes\n## Notes\n```\n# not a heading\n```\n',
    );
    expect([...anchors]).toEqual([
      'api-reference',
      'speed-npm-run-benchadmin',
      'rotating-encryption_key-without-downtime',
      'notes',
      'notes-1',
    ]);
  });

  it('flags a link to a missing file or heading, and passes good ones', () => {
    const files = new Set(['README.md', 'docs/api.md', 'docs/screenshots/a.png', 'sdk/index.ts']);
    const texts: Record<string, string> = { 'docs/api.md': '# API\n## Errors\n' };
    const md = [
      '[ok](docs/api.md#errors) [ok](docs/screenshots/a.png) [folder](sdk/) [self](#top) ![img](docs/screenshots/a.png "t")',
      '[gone](docs/gone.md) [bad anchor](docs/api.md#no-such)',
      '```',
      '[in code](docs/also-gone.md)',
      '```',
      '# Top',
      '[ref]: docs/missing.md',
    ].join('\n');
    expect(show(brokenLinks('README.md', md, files, (f) => texts[f] ?? md))).toEqual([
      'README.md:2: links to docs/gone.md: no such tracked file',
      'README.md:2: links to docs/api.md#no-such: no heading #no-such in docs/api.md',
      'README.md:7: links to docs/missing.md: no such tracked file',
    ]);
  });

  it('flags a citation of a section that does not exist, passes shortened and wrapped ones', () => {
    const api = `${docsDir}api.md`;
    const docs: Record<string, string[]> = {
      [api]: headings('# API\n## Request timestamps (extension)\n## Decision `reasons`\n'),
    };
    const of = (d: string) => docs[d] ?? null;
    const text = [
      `/** ${api} "Request timestamps": ok, shortened */`,
      `/** ${api} "Decision`,
      ' * reasons": ok, wrapped */',
      `// ${api} "Create a verification": no such heading`,
      `// ${docsDir}gone.md "Anything"`,
    ].join('\n');
    expect(show(brokenCitations('lib/x.ts', text, of))).toEqual([
      `lib/x.ts:4: cites ${api} "create a verification": no such heading`,
      `lib/x.ts:5: cites ${docsDir}gone.md, which is not a tracked file`,
    ]);
  });
});

describe('the repository', () => {
  it('no tracked file names the contract’s sources or points outside the repository', () => {
    const findings = tracked.flatMap((file) => {
      if (!fs.existsSync(path.join(root, file))) return [];
      const buf = fs.readFileSync(path.join(root, file));
      return isText(buf) ? outsideReferences(file, buf.toString('utf8')) : [];
    });
    expect(show(findings)).toEqual([]);
  });

  it('every relative link of README.md and docs/ resolves to a tracked file and heading', () => {
    const docs = tracked.filter((f) => f === 'README.md' || (f.startsWith('docs/') && f.endsWith('.md')));
    expect(docs).toContain('docs/README.md');
    expect(show(docs.flatMap((f) => brokenLinks(f, read(f), trackedSet, read)))).toEqual([]);
  });

  it('every citation of a documentation section (a docs file and "Heading") names a heading of that file', () => {
    const cache = new Map<string, string[] | null>();
    const headingsOf = (doc: string) => {
      if (!cache.has(doc)) cache.set(doc, trackedSet.has(doc) ? headings(read(doc)) : null);
      return cache.get(doc)!;
    };
    const findings = tracked
      .filter((f) => /\.(ts|tsx|mts|mjs|js|md)$/.test(f) && fs.existsSync(path.join(root, f)))
      .flatMap((f) => brokenCitations(f, read(f), headingsOf));
    expect(show(findings)).toEqual([]);
  });

  it('the README stays a front door: at most 200 lines', () => {
    expect(read('README.md').split('\n').length).toBeLessThanOrEqual(200);
  });
});

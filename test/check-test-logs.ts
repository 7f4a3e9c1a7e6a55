/**
 * npm run test:logs — the last step of `npm test`: searches every log a test run wrote (.cache/test-logs: each
 * vitest worker at debug level, the stderr of every server the tests started, the e2e server's included) for
 * what must never be logged: faces (image bytes, embeddings), capture tokens, secret keys, encryption keys,
 * and the names, dates of birth and document numbers the tests put on their synthetic documents. Prints what it
 * read and every finding; fails on a finding, and on an empty run (a check of nothing proves nothing).
 */
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_IDENTITY } from './helpers/images';
import { PERSON } from './helpers/retention';
import { TEST_LOG_DIR } from './helpers/test-logs';

/** The people of the test fixtures: their names, dates of birth (ISO and MRZ), document numbers, emails. */
export const KNOWN_PERSONAL = [
  DEFAULT_IDENTITY.surname,
  DEFAULT_IDENTITY.givenNames,
  DEFAULT_IDENTITY.birthDate,
  DEFAULT_IDENTITY.birthDate.slice(2).replace(/-/g, ''),
  DEFAULT_IDENTITY.documentNumber,
  PERSON.given_names,
  'OLSEN',
  '2010-03-04',
  'anna@example.com',
];

const mixed = (s: string) => /[A-Z]/.test(s) && /[a-z]/.test(s) && /\d/.test(s);

/** What must never appear, by its shape. */
export const FORBIDDEN: { what: string; re: RegExp; accept?: (m: string) => boolean }[] = [
  { what: 'secret API key', re: /sk_(test|live)_[A-Za-z0-9]{56}/g },
  { what: 'capture link with its token', re: /\/(verify|api\/capture)\/(?!\[redacted\])[A-Za-z0-9_-]{40,}/g },
  // randomToken(): 32 random bytes, base64url (43 characters); only a run of exactly that with mixed case and digits.
  { what: 'capture token', re: /(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g, accept: (m) => mixed(m) },
  // 32 random bytes in base64: ENCRYPTION_KEY, a data key.
  { what: 'encryption key', re: /(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{43}=(?![A-Za-z0-9+/=])/g, accept: (m) => mixed(m) },
  { what: 'image bytes (base64 JPEG/PNG/WebP)', re: /\/9j\/4|iVBORw0KGgo|UklGR[A-Za-z0-9+/]{2}AABXRUJQ/g },
  { what: 'image bytes (raw JPEG)', re: /\xff\xd8\xff/g },
  { what: 'face embedding (a long list of numbers)', re: /\[\s*(-?\d+(\.\d+)?(e-?\d+)?\s*,\s*){31,}/g },
];

export type Finding = { file: string; line: number; what: string; match: string };

export function scanText(file: string, text: string, known = KNOWN_PERSONAL): Finding[] {
  const out: Finding[] = [];
  const lines = text.split('\n');
  lines.forEach((l, i) => {
    for (const k of known)
      if (l.includes(k)) out.push({ file, line: i + 1, what: 'personal data of a test fixture', match: k });
    for (const f of FORBIDDEN) {
      for (const m of l.matchAll(f.re))
        if (!f.accept || f.accept(m[0]))
          out.push({ file, line: i + 1, what: f.what, match: m[0].slice(0, 24) + (m[0].length > 24 ? '…' : '') });
    }
  });
  return out;
}

export function scanDir(
  dir: string,
  known = KNOWN_PERSONAL,
): { files: { name: string; lines: number }[]; findings: Finding[] } {
  const files: { name: string; lines: number }[] = [];
  const findings: Finding[] = [];
  if (!fs.existsSync(dir)) return { files, findings };
  for (const name of fs.readdirSync(dir).sort()) {
    const text = fs.readFileSync(path.join(dir, name), 'latin1');
    files.push({ name, lines: text.split('\n').filter(Boolean).length });
    findings.push(...scanText(name, text, known));
  }
  return { files, findings };
}

function main() {
  const { files, findings } = scanDir(TEST_LOG_DIR);
  const total = files.reduce((s, f) => s + f.lines, 0);
  const servers = files.filter((f) => f.name.startsWith('server-')).length;
  console.log(
    `test:logs: ${files.length} log files (${servers} from servers), ${total} lines, in ${path.relative(process.cwd(), TEST_LOG_DIR)}`,
  );
  for (const f of findings) console.log(`  ${f.file}:${f.line}: ${f.what}: ${f.match}`);
  if (total === 0) {
    console.log('test:logs: no log lines: run the tests first (npm test, or npm run test:unit)');
    process.exit(1);
  }
  if (findings.length) {
    console.log(`test:logs: ${findings.length} findings`);
    process.exit(1);
  }
  console.log('test:logs: no faces, tokens, secrets, names or dates of birth in the logs');
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) main();

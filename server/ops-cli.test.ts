/**
 * The operator CLI's command line, for every command of the table: an unknown or misspelt flag, a flag without
 * its value, a stray word and a missing required flag are refused with exit status 2 (nothing run, no database
 * opened), `--help` prints the flags and exits 0, and `--json` prints exactly one JSON object throughout. In
 * process (server/ops.int.test.ts runs the CLI as a process). docs/cli.md must list every command and flag.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS, main } from './ops';
import { closest, GLOBAL_FLAGS, parseCommandLine } from './ops-cli';

async function cli(...argv: string[]) {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (s) => void (out += s), err: (s) => void (err += s) });
  return { code, out, err };
}
/** With --json: the exit status and the one JSON object printed. */
async function json(...argv: string[]) {
  const r = await cli(...argv, ...(argv.includes('--json') ? [] : ['--json']));
  const lines = r.out.trim().split('\n');
  expect(lines, argv.join(' ')).toHaveLength(1);
  return { code: r.code, out: JSON.parse(lines[0]), err: r.err };
}

const table = Object.entries(COMMANDS);
const flagsOf = (c: (typeof COMMANDS)[string]) => Object.keys({ ...c.flags, ...GLOBAL_FLAGS }).map((f) => `--${f}`);
/** A word that is some value of the flag's type. */
const sample = (type: string) => (type === 'int' || type === 'number' ? '5' : type === 'bool' ? 'true' : 'x');
/** The required flags of a command with a value each, so that only the flag under test is wrong. */
const requiredArgs = (c: (typeof COMMANDS)[string], except?: string) =>
  Object.entries(c.flags).flatMap(([n, s]) => (s.required && n !== except ? [`--${n}`, sample(s.type)] : []));

describe('ops command line', () => {
  it("the issue's example: a misspelt flag exits 2, names it, suggests the right one and lists the valid ones", async () => {
    const r = await json('workspace:settings', '--workspace', 'ws_x', '--age-treshold', '30');
    expect(r.code).toBe(2);
    expect(r.out.error).toMatchObject({
      code: 'UNKNOWN_FLAG',
      details: { flag: '--age-treshold', suggestion: '--age-threshold' },
    });
    expect(r.out.error.details.valid).toEqual(flagsOf(COMMANDS['workspace:settings']));
    expect(r.out.error.message).toContain('--age-treshold');
    expect(r.out.error.message).toContain('--age-threshold');
    // Without --json: the same object on stdout, the message and where to find the flags on stderr.
    const text = await cli('workspace:settings', '--workspace', 'ws_x', '--age-treshold', '30');
    expect([text.code, JSON.parse(text.out).error.code]).toEqual([2, 'UNKNOWN_FLAG']);
    expect(text.err).toContain('workspace:settings --help');
  });

  it.each(table)('%s: an unknown flag exits 2, naming it and listing the valid ones', async (name, c) => {
    for (const bad of ['--no-such-flag', '-x', '--no-such=1']) {
      const r = await json(name, ...requiredArgs(c), bad);
      expect([bad, r.code, r.out.error.code, r.out.error.details.flag]).toEqual([
        bad,
        2,
        'UNKNOWN_FLAG',
        bad.split('=')[0],
      ]);
      expect(r.out.error.details.valid).toEqual(flagsOf(c));
    }
    // Every flag misspelt by one letter dropped is refused too, never taken for another.
    for (const flag of Object.keys(c.flags).filter((f) => f.length > 3)) {
      const typo = `--${flag.slice(0, 1)}${flag.slice(2)}`;
      const r = await json(name, ...requiredArgs(c), typo, 'v');
      expect([typo, r.code, r.out.error.code]).toEqual([typo, 2, 'UNKNOWN_FLAG']);
    }
  });

  it.each(table)('%s: a flag without its value exits 2, naming it', async (name, c) => {
    for (const [flag, spec] of Object.entries(c.flags).filter(([, s]) => s.type !== 'bool')) {
      // At the end of the line, and followed by another flag.
      for (const args of [
        ['--json', ...requiredArgs(c, flag), `--${flag}`],
        [`--${flag}`, '--json', ...requiredArgs(c, flag)],
      ]) {
        const r = await json(name, ...args);
        expect([flag, r.code, r.out.error.code, r.out.error.details.flag]).toEqual([
          flag,
          2,
          'MISSING_VALUE',
          `--${flag}`,
        ]);
        expect(r.out.error.message).toContain(`--${flag}`);
      }
      if (spec.required) {
        const r = await json(name, ...requiredArgs(c, flag));
        expect([flag, r.code, r.out.error.code, r.out.error.details.flag]).toEqual([
          flag,
          2,
          'VALIDATION_ERROR',
          `--${flag}`,
        ]);
        expect(r.out.error.details.fields).toEqual({ [flag]: ['Required.'] });
      }
    }
  });

  it.each(table)(
    '%s --help prints every flag with what it does on stdout and exits 0, needing no other flag',
    async (name, c) => {
      for (const extra of [[], ['--no-such-flag']]) {
        const r = await cli(name, '--help', ...extra);
        expect(r.code).toBe(0);
        expect(r.err).toBe('');
        for (const [flag, spec] of Object.entries({ ...c.flags, ...GLOBAL_FLAGS })) {
          const line = r.out
            .split('\n')
            .findIndex(
              (l) =>
                l.trimStart().startsWith(`--${flag} `) ||
                l.trim() === `--${flag}` ||
                l.trimStart().startsWith(`--${flag},`),
            );
          expect(line, `${name} --${flag}`).toBeGreaterThan(-1);
          // Its help on that line or, for a long flag, the next.
          expect(
            r.out
              .split('\n')
              .slice(line, line + 2)
              .join(' '),
            `${name} --${flag}`,
          ).toContain(spec.help);
        }
      }
      expect((await cli(name, '-h')).code).toBe(0);
      const j = await json(name, '--help');
      expect(j.code).toBe(0);
      expect(j.out.command.flags.map((f: { flag: string }) => f.flag)).toEqual(flagsOf(c));
    },
  );

  it('a stray word, a flag given twice, and no or an unknown command exit 2', async () => {
    expect((await json('key:list', '--workspace', 'ws_x', 'extra')).out.error).toMatchObject({
      code: 'UNEXPECTED_ARGUMENT',
      details: { argument: 'extra' },
    });
    const twice = await json('key:list', '--workspace', 'a', '--workspace', 'b');
    expect([twice.code, twice.out.error.code, twice.out.error.details.flag]).toEqual([
      2,
      'DUPLICATE_FLAG',
      '--workspace',
    ]);
    expect((await json()).code).toBe(2);
    const unknown = await json('workspace:setings', '--workspace', 'x');
    expect([unknown.code, unknown.out.error.code, unknown.out.error.details.suggestion]).toEqual([
      2,
      'UNKNOWN_COMMAND',
      'workspace:settings',
    ]);
  });

  it('ops --help lists every command; ops help COMMAND is COMMAND --help', async () => {
    const r = await cli('--help');
    expect(r.code).toBe(0);
    for (const [name, c] of table)
      expect(r.out).toMatch(new RegExp(`^  ${name} +${c.summary.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
    expect((await json('--help')).out.commands.map((c: { name: string }) => c.name)).toEqual(Object.keys(COMMANDS));
    expect((await cli('help', 'key:create')).out).toBe((await cli('key:create', '--help')).out);
  });

  it('booleans: bare, or true|false after them or with =; anything else is VALIDATION_ERROR (exit 1), as before', () => {
    const flags = { rebuild: { type: 'bool', help: 'h' }, workspace: { type: 'string', help: 'h' } } as const;
    expect(parseCommandLine('x', flags, ['--rebuild']).rebuild).toBe(true);
    expect(parseCommandLine('x', flags, ['--rebuild', 'false', '--workspace', 'w'])).toMatchObject({
      rebuild: false,
      workspace: 'w',
    });
    expect(parseCommandLine('x', flags, ['--rebuild=false']).rebuild).toBe(false);
    expect(parseCommandLine('x', flags, ['--rebuild', '--json'])).toMatchObject({ rebuild: true, json: true });
    expect(() => parseCommandLine('x', flags, ['--rebuild', 'yes'])).toThrow(
      expect.objectContaining({ code: 'VALIDATION_ERROR', details: { fields: { rebuild: ['true or false'] } } }),
    );
    // A value may start with one dash (a negative number, left to the setting's own range check).
    expect(parseCommandLine('x', flags, ['--workspace', '-5']).workspace).toBe('-5');
  });

  it('ints and numbers keep their checks: exit 1, VALIDATION_ERROR on the flag, before any database is opened', async () => {
    for (const [flag, value, expected] of [
      ['--age-threshold', 'abc', 'integer'],
      ['--age-threshold', '2.5', 'integer'],
      ['--age-threshold', '', 'integer'],
      ['--duplicate-threshold', 'high', 'number'],
      ['--enforce-signature', 'maybe', 'true or false'],
    ]) {
      const r = await json('workspace:settings', '--workspace', 'ws_x', flag, value);
      expect([flag, value, r.code, r.out.error]).toEqual([
        flag,
        value,
        1,
        expect.objectContaining({ code: 'VALIDATION_ERROR', details: { fields: { [flag.slice(2)]: [expected] } } }),
      ]);
    }
  });

  it('closest() suggests only what looks like a misspelling', () => {
    expect(closest('--age-treshold', ['--age-threshold', '--workspace'])).toBe('--age-threshold');
    expect(closest('--colour', ['--age-threshold', '--workspace'])).toBeUndefined();
  });

  it('docs/cli.md documents every command and every flag', () => {
    const doc = fs.readFileSync(path.resolve(import.meta.dirname, '../docs/cli.md'), 'utf8');
    for (const [name, c] of table) {
      const at = doc.indexOf(`\n### \`${name}\``);
      expect(at, name).toBeGreaterThan(-1);
      const section = doc.slice(
        at + 1,
        doc.indexOf('\n### ', at + 1) === -1 ? undefined : doc.indexOf('\n### ', at + 1),
      );
      for (const flag of Object.keys(c.flags)) expect(section, `${name} --${flag}`).toContain(`\`--${flag}`);
    }
  });
});
